/**
 * Runs a README code block as printed, in this process: TypeScript compiled to JavaScript, each import turned into a
 * dynamic import of the same module (so `workflow-webhooks` is this package by its own name), and the block's
 * top-level code run as the body of an async function. `globals` shadow names the block reads (such as `process`,
 * to give it an environment of its own); `returns` is an expression evaluated after the block, whose value the
 * promise resolves to.
 */
import ts from 'typescript';

export async function runReadmeBlock<T>(block: string, returns: string, globals: Record<string, unknown> = {}): Promise<T> {
  const javascript = ts.transpileModule(block, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const body = javascript.split('\n').map((line) => {
    const named = /^import \{(.*)\} from '([^']+)';$/.exec(line);
    if (named) return `const {${(named[1] as string).replace(/ as /g, ': ')}} = await load('${named[2] as string}');`;
    const star = /^import \* as (\w+) from '([^']+)';$/.exec(line);
    if (star) return `const ${star[1] as string} = await load('${star[2] as string}');`;
    const main = /^import (\w+) from '([^']+)';$/.exec(line);
    if (main) return `const ${main[1] as string} = (await load('${main[2] as string}')).default;`;
    if (line.startsWith('import ')) throw new Error(`runReadmeBlock cannot run this import: ${line}`);
    return line;
  }).join('\n');
  const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<T>;
  const names = Object.keys(globals);
  const run = new AsyncFunction('load', ...names, `${body}\nreturn (${returns});`);
  return run((specifier: string) => import(specifier), ...names.map((name) => globals[name]));
}
