/**
 * A small, safe evaluator for the expressions definitions carry (`={{ !$parameter.options.ignoreCase }}`,
 * `=https://example.com/{{ $value }}`). It parses its own grammar and interprets it: no `eval`, no `Function`, no
 * access to globals. Names are only the variables the caller passes; member access reads own properties of plain
 * data and refuses `constructor`, `__proto__` and `prototype`; calls are limited to a few pure string and number
 * helpers. Anything else is an ExpressionError, never a side effect.
 *
 * Grammar: literals (numbers, 'strings', "strings", true, false, null, undefined), variables ($name or name given
 * by the caller), `.name` and `[expr]` access, calls of the allowed helpers, unary ! - +, binary * / % + - < <= >
 * >= == != === !== && || ??, the conditional `a ? b : c`, and parentheses.
 */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

type Node =
  | { kind: 'literal'; value: unknown }
  | { kind: 'variable'; name: string }
  | { kind: 'member'; object: Node; property: Node }
  | { kind: 'call'; callee: Node; args: Node[] }
  | { kind: 'unary'; operator: string; operand: Node }
  | { kind: 'binary'; operator: string; left: Node; right: Node }
  | { kind: 'conditional'; test: Node; consequent: Node; alternate: Node };

const FORBIDDEN = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);
const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:e[+-]?\d+)?)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|([A-Za-z_$][\w$]*)|(===|!==|==|!=|<=|>=|&&|\|\||\?\?|[-+*/%<>!?:.,()[\]]))/y;

/** Helpers that may be called: pure, on strings and numbers only. */
const STRING_METHODS = new Set(['toLowerCase', 'toUpperCase', 'trim', 'includes', 'startsWith', 'endsWith', 'slice', 'split', 'replaceAll', 'padStart']);
const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  String: (value) => String(value),
  Number: (value) => Number(value),
  Boolean: (value) => Boolean(value),
  encodeURIComponent: (value) => encodeURIComponent(String(value)),
  isEmpty: (value) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0),
};
const MAX_LENGTH = 2000;

function tokenize(source: string): string[] {
  if (source.length > MAX_LENGTH) throw new ExpressionError(`An expression may be at most ${MAX_LENGTH} characters long.`);
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let position = 0;
  while (position < source.length) {
    if (/^\s*$/.test(source.slice(position))) break;
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(source);
    if (match === null) throw new ExpressionError(`Unexpected character at ${position}: '${source.slice(position, position + 10)}'.`);
    tokens.push(match[0].trim());
    position = TOKEN.lastIndex;
  }
  return tokens;
}

const PRECEDENCE: Record<string, number> = {
  '??': 1, '||': 2, '&&': 3, '==': 4, '!=': 4, '===': 4, '!==': 4, '<': 5, '<=': 5, '>': 5, '>=': 5, '+': 6, '-': 6, '*': 7, '/': 7, '%': 7,
};

class Parser {
  #at = 0;
  constructor(private readonly tokens: string[]) {}

  parse(): Node {
    const node = this.#conditional();
    if (this.#at < this.tokens.length) throw new ExpressionError(`Unexpected '${this.tokens[this.#at] ?? ''}'.`);
    return node;
  }

  #peek(): string | undefined { return this.tokens[this.#at]; }
  #next(): string {
    const token = this.tokens[this.#at++];
    if (token === undefined) throw new ExpressionError('The expression ends too early.');
    return token;
  }
  #expect(token: string): void {
    const found = this.#next();
    if (found !== token) throw new ExpressionError(`Expected '${token}' but found '${found}'.`);
  }

  #conditional(): Node {
    const test = this.#binary(1);
    if (this.#peek() !== '?') return test;
    this.#next();
    const consequent = this.#conditional();
    this.#expect(':');
    return { kind: 'conditional', test, consequent, alternate: this.#conditional() };
  }

  #binary(minimum: number): Node {
    let left = this.#unary();
    for (;;) {
      const operator = this.#peek();
      const precedence = operator === undefined ? undefined : PRECEDENCE[operator];
      if (precedence === undefined || precedence < minimum) return left;
      this.#next();
      left = { kind: 'binary', operator: operator as string, left, right: this.#binary(precedence + 1) };
    }
  }

  #unary(): Node {
    const operator = this.#peek();
    if (operator === '!' || operator === '-' || operator === '+') {
      this.#next();
      return { kind: 'unary', operator, operand: this.#unary() };
    }
    return this.#postfix(this.#primary());
  }

  #postfix(node: Node): Node {
    for (;;) {
      const token = this.#peek();
      if (token === '.') {
        this.#next();
        const name = this.#next();
        if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new ExpressionError(`Expected a property name after '.', found '${name}'.`);
        node = { kind: 'member', object: node, property: { kind: 'literal', value: name } };
      } else if (token === '[') {
        this.#next();
        const property = this.#conditional();
        this.#expect(']');
        node = { kind: 'member', object: node, property };
      } else if (token === '(') {
        this.#next();
        const args: Node[] = [];
        while (this.#peek() !== ')') {
          args.push(this.#conditional());
          if (this.#peek() === ',') this.#next();
          else break;
        }
        this.#expect(')');
        node = { kind: 'call', callee: node, args };
      } else {
        return node;
      }
    }
  }

  #primary(): Node {
    const token = this.#next();
    if (token === '(') {
      const inner = this.#conditional();
      this.#expect(')');
      return inner;
    }
    if (/^\d/.test(token)) return { kind: 'literal', value: Number(token) };
    if (token.startsWith("'") || token.startsWith('"')) return { kind: 'literal', value: token.slice(1, -1).replace(/\\(.)/g, '$1') };
    if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' };
    if (token === 'null') return { kind: 'literal', value: null };
    if (token === 'undefined') return { kind: 'literal', value: undefined };
    if (/^[A-Za-z_$][\w$]*$/.test(token)) return { kind: 'variable', name: token };
    throw new ExpressionError(`Unexpected '${token}'.`);
  }
}

export type Variables = Readonly<Record<string, unknown>>;

function read(object: unknown, key: unknown): unknown {
  if (typeof key !== 'string' && typeof key !== 'number') throw new ExpressionError('A property name must be a string or a number.');
  const name = String(key);
  if (FORBIDDEN.has(name)) throw new ExpressionError(`Access to '${name}' is not allowed.`);
  if (typeof object === 'string') return name === 'length' ? object.length : /^\d+$/.test(name) ? object[Number(name)] : undefined;
  if (Array.isArray(object) && name === 'length') return object.length;
  if (typeof object !== 'object' || object === null) return undefined;
  return Object.hasOwn(object, name) ? (object as Record<string, unknown>)[name] : undefined;
}

function call(node: Extract<Node, { kind: 'call' }>, variables: Variables): unknown {
  const args = node.args.map((arg) => evaluateNode(arg, variables));
  const { callee } = node;
  if (callee.kind === 'variable' && Object.hasOwn(FUNCTIONS, callee.name) && !Object.hasOwn(variables, callee.name)) {
    return (FUNCTIONS[callee.name] as (...values: unknown[]) => unknown)(...args);
  }
  if (callee.kind === 'member') {
    const target = evaluateNode(callee.object, variables);
    const method = evaluateNode(callee.property, variables);
    if (typeof target === 'string' && typeof method === 'string' && STRING_METHODS.has(method)) {
      if (!args.every((arg) => typeof arg === 'string' || typeof arg === 'number')) throw new ExpressionError(`${method}() takes strings or numbers.`);
      return (String.prototype[method as 'trim'] as (...values: unknown[]) => unknown).apply(target, args);
    }
    throw new ExpressionError(`Calling '${String(method)}' is not allowed.`);
  }
  throw new ExpressionError(`Calling '${callee.kind === 'variable' ? callee.name : 'this value'}' is not allowed.`);
}

function binary(operator: string, left: unknown, right: () => unknown): unknown {
  switch (operator) {
    case '&&': return left ? right() : left;
    case '||': return left ? left : right();
    case '??': return left ?? right();
    default: break;
  }
  const r = right();
  const [a, b] = [left as number, r as number];
  switch (operator) {
    case '+': return (typeof left === 'string' || typeof r === 'string') ? `${String(left)}${String(r)}` : a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '%': return a % b;
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    // eslint-disable-next-line eqeqeq
    case '==': return left == r;
    // eslint-disable-next-line eqeqeq
    case '!=': return left != r;
    case '===': return left === r;
    default: return left !== r;
  }
}

function evaluateNode(node: Node, variables: Variables): unknown {
  switch (node.kind) {
    case 'literal': return node.value;
    case 'variable':
      if (!Object.hasOwn(variables, node.name)) throw new ExpressionError(`'${node.name}' is not defined.`);
      return variables[node.name];
    case 'member': return read(evaluateNode(node.object, variables), evaluateNode(node.property, variables));
    case 'call': return call(node, variables);
    case 'unary': {
      const value = evaluateNode(node.operand, variables);
      return node.operator === '!' ? !value : node.operator === '-' ? -(value as number) : +(value as number);
    }
    case 'binary': return binary(node.operator, evaluateNode(node.left, variables), () => evaluateNode(node.right, variables));
    case 'conditional': return evaluateNode(node.test, variables) ? evaluateNode(node.consequent, variables) : evaluateNode(node.alternate, variables);
  }
}

/** Evaluates one expression (the inside of `{{ }}`). */
export function evaluate(source: string, variables: Variables = {}): unknown {
  return evaluateNode(new Parser(tokenize(source)).parse(), variables);
}

/** Whether a parameter value is an expression (the platform's rule: it starts with `=`). */
export function isExpressionValue(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('=');
}

/**
 * Resolves a stored value: a plain value is returned as is; `={{ expr }}` alone gives the expression's value;
 * `=text {{ expr }} text` gives the text with each expression's value put in.
 */
export function resolveExpression(value: unknown, variables: Variables = {}): unknown {
  if (!isExpressionValue(value)) return value;
  const template = value.slice(1);
  const whole = /^\s*\{\{([\s\S]*?)\}\}\s*$/.exec(template);
  if (whole !== null && !(whole[1] as string).includes('}}')) return evaluate(whole[1] as string, variables);
  return template.replace(/\{\{([\s\S]*?)\}\}/g, (_match, inner: string) => {
    const result = evaluate(inner, variables);
    return result === undefined || result === null ? '' : typeof result === 'object' ? JSON.stringify(result) : String(result as string | number | boolean);
  });
}
