/**
 * The rules scripts/check-specs/run.ts holds every spec file to, read with the TypeScript compiler API (issue 43:
 * tests that cannot fail). Each rule looks at one source file and names the lines that break it:
 * - `no-assertion`: an `it()` whose body asserts nothing: no `expect(`, no `assert…(`, no supertest `.expect(`, no
 *   `throw`, no call to a function of the same file that does, nor to one of the imported helpers known to assert.
 * - `same-both-sides`: `expect(x).to.equal(x)` (or eql, deep.equal…), the same expression on both sides.
 * - `wall-clock`: `Date.now() -` or `performance.now() -` inside an `expect(…)` or its assertion, or put first in a
 *   variable or an object's property that they read (`const took = Date.now() - t0; expect(took)`): durations
 *   belong in bench/.
 */
import ts from 'typescript';

export type Rule = 'no-assertion' | 'same-both-sides' | 'wall-clock';

export interface Finding { file: string; line: number; rule: Rule; text: string }

/**
 * Imported helpers that throw when what they wait for never comes, by name (expect…/assert… helpers count by their
 * name already). A name goes here only when every path through it throws or asserts: not `eventually`, which
 * spec/support/queue/completions.ts defines returning false instead of throwing.
 */
export const ASSERTING_HELPERS: ReadonlySet<string> = new Set([
  'queueDrained', // spec/support/queue-drained.ts: throws when the queue does not drain in time
  'timersArmed', // spec/support/fake-clock.ts: throws when the code under test never set its timers
]);

/** What asserts by its very name: chai's expect and assert, node:assert, supertest's .expect(), a `throw`. */
function assertsByName(name: string): boolean {
  return name === 'throw' || name === 'expect' || name === 'assert' || /^assert[A-Z]/.test(name) || /^expect[A-Z]/.test(name);
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** The object a method is called on, when it is a plain name: `assert` in `assert.equal(…)`. */
function receiverName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  return ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) ? callee.expression.text : undefined;
}

function isFunction(node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node);
}

/** The names of the functions a file declares, with their bodies: `function f() {}` and `const f = () => …`. */
function localFunctions(source: ts.SourceFile): Map<string, ts.Node> {
  const found = new Map<string, ts.Node>();
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name !== undefined && node.body !== undefined) found.set(node.name.text, node.body);
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined && isFunction(node.initializer)) {
      found.set(node.name.text, node.initializer.body);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The names of the calls made anywhere inside `node` (nested functions included); a `throw` counts as `throw`. */
function callsIn(node: ts.Node): string[] {
  const names: string[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isThrowStatement(child)) names.push('throw');
    if (ts.isCallExpression(child)) {
      const name = calleeName(child);
      if (name !== undefined) names.push(name);
      const receiver = receiverName(child);
      if (receiver === 'assert') names.push(receiver);
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

/** Whether `body` asserts: directly, or through a local helper that does (followed to any depth, once each). */
function asserts(body: ts.Node, locals: Map<string, ts.Node>, helpers: ReadonlySet<string>, seen = new Set<string>()): boolean {
  return callsIn(body).some((name) => {
    if (assertsByName(name) || helpers.has(name)) return true;
    const helper = locals.get(name);
    if (helper === undefined || seen.has(name)) return false;
    seen.add(name);
    return asserts(helper, locals, helpers, seen);
  });
}

/** The `expect(…)` call at the root of a chain such as `expect(a).to.deep.equal(b)`, if there is one. */
function expectAtRoot(node: ts.Expression): ts.CallExpression | undefined {
  let current: ts.Expression = node;
  for (;;) {
    if (ts.isCallExpression(current)) {
      if (ts.isIdentifier(current.expression) && current.expression.text === 'expect') return current;
      current = current.expression;
    } else if (ts.isPropertyAccessExpression(current)) {
      current = current.expression;
    } else {
      return undefined;
    }
  }
}

const EQUALITY = new Set(['equal', 'equals', 'eq', 'eql', 'eqls']);

function isClockRead(node: ts.Node): boolean {
  if (!ts.isCallExpression(node) || node.arguments.length > 0 || !ts.isPropertyAccessExpression(node.expression)) return false;
  const { expression, name } = node.expression;
  return name.text === 'now' && ts.isIdentifier(expression) && (expression.text === 'Date' || expression.text === 'performance');
}

/** The names a file gives durations: variables and object properties whose value is (made from) a duration. */
interface Durations { variables: Set<string>; properties: Set<string> }

/** Whether `node` holds a duration: `Date.now() - …`, or a variable or property that `durations` names. */
function readsElapsedTime(node: ts.Node, durations: Durations): boolean {
  // `Date.now() - 5000` is a moment, not a duration.
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.MinusToken && isClockRead(node.left)) return !ts.isNumericLiteral(node.right);
  if (ts.isIdentifier(node) && durations.variables.has(node.text)) return true;
  if (ts.isPropertyAccessExpression(node) && durations.properties.has(node.name.text)) return true;
  // A function given here (a callback) may measure time without its result being a duration; an object's
  // properties are followed by their names.
  return ts.forEachChild(node, (child) => !isFunction(child) && !ts.isObjectLiteralExpression(child) && readsElapsedTime(child, durations)) === true;
}

/**
 * A duration put in a variable or an object's property before it meets expect(): `const took = Date.now() - t0`,
 * `{ afterMs: Date.now() - started }`, and what is made from those in turn (followed until nothing new is found).
 */
function durationsOf(source: ts.SourceFile): Durations {
  const durations: Durations = { variables: new Set(), properties: new Set() };
  for (let grown = true; grown;) {
    grown = false;
    const visit = (node: ts.Node): void => {
      const named = ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined ? [durations.variables, node.name.text, node.initializer] as const
        : ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? [durations.properties, node.name.text, node.initializer] as const
          : undefined;
      if (named !== undefined && !named[0].has(named[1]) && readsElapsedTime(named[2], durations)) {
        named[0].add(named[1]);
        grown = true;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return durations;
}

/** Every finding in one spec file. `file` is only used to name it. */
export function checkSpec(file: string, text: string, helpers: ReadonlySet<string> = ASSERTING_HELPERS): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const locals = localFunctions(source);
  const durations = durationsOf(source);
  const findings: Finding[] = [];
  const report = (node: ts.Node, rule: Rule): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    findings.push({ file, line, rule, text: node.getText(source).split('\n')[0]?.slice(0, 120) ?? '' });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const isIt = ts.isIdentifier(node.expression) && node.expression.text === 'it';
      const body = node.arguments.find((argument): argument is ts.ArrowFunction | ts.FunctionExpression => ts.isArrowFunction(argument) || ts.isFunctionExpression(argument));
      if (isIt && body !== undefined && !asserts(body.body, locals, helpers)) report(node, 'no-assertion');
      if (name !== undefined && EQUALITY.has(name) && node.arguments.length >= 1 && ts.isPropertyAccessExpression(node.expression)) {
        const root = expectAtRoot(node.expression.expression);
        const actual = root?.arguments[0];
        if (actual !== undefined && actual.getText(source).replace(/\s+/g, '') === (node.arguments[0] as ts.Expression).getText(source).replace(/\s+/g, '')) {
          report(node, 'same-both-sides');
        }
      }
      // In expect(…) itself, or in the assertion of its chain: `expect(n).to.be.within(1, seconds)`.
      const asserted = ts.isIdentifier(node.expression) && node.expression.text === 'expect'
        || (ts.isPropertyAccessExpression(node.expression) && expectAtRoot(node.expression.expression) !== undefined);
      if (asserted && node.arguments.some((argument) => readsElapsedTime(argument, durations))) report(node, 'wall-clock');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}
