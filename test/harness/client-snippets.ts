/**
 * The documentation's TypeScript snippets that use the typed client, compiled as a user's
 * project would compile them: `tsc --strict`, Node.js module resolution (which reads the
 * package's `exports`), in this process through the compiler API.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The ```ts blocks of a Markdown text that import `wfapi/client`. */
export function clientSnippets(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)]
    .map((match) => match[1]!)
    .filter((code) => /from 'wfapi\/client'/.test(code));
}

/** A user's `tsc --strict` on Node.js: ES modules resolved as Node resolves them, with Node's types. */
export const USER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  typeRoots: [join(ROOT, 'node_modules/@types')],
  skipLibCheck: true,
};

export interface Compiled {
  /** Every diagnostic, formatted with its file, line and message; empty when it compiled. */
  readonly diagnostics: string[];
  /** Where `wfapi/client` resolved from each file (the declaration file the types came from). */
  readonly resolved: Map<string, string | undefined>;
  /** The JavaScript emitted per file (when `outDir` is set and it compiled). */
  readonly emitted: Map<string, string>;
}

/**
 * Compiles `files` (absolute paths to their text; they need not exist on disk, and take their
 * module format from their extension or the package.json above them) with `options` on top of
 * USER_OPTIONS. With `outDir`, the JavaScript is written there too.
 */
export function compile(files: ReadonlyMap<string, string>, options: ts.CompilerOptions = {}): Compiled {
  const compilerOptions = { ...USER_OPTIONS, noEmit: options.outDir === undefined, ...options };
  const host = ts.createCompilerHost(compilerOptions);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  host.readFile = (file) => files.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) =>
    files.has(file)
      ? ts.createSourceFile(file, files.get(file)!, language)
      : getSourceFile.call(host, file, language, ...rest);
  const emitted = new Map<string, string>();
  const writeFile = host.writeFile;
  host.writeFile = (file, text, ...rest) => {
    emitted.set(file, text);
    writeFile.call(host, file, text, ...rest);
  };
  const program = ts.createProgram([...files.keys()], compilerOptions, host);
  const emit = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emit.diagnostics].map((diagnostic) =>
    ts.formatDiagnostic(diagnostic, {
      getCanonicalFileName: (file) => file,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    }),
  );
  const resolved = new Map<string, string | undefined>();
  for (const file of files.keys()) {
    const mode = program.getSourceFile(file)?.impliedNodeFormat;
    const resolution = ts.resolveModuleName(
      'wfapi/client',
      file,
      compilerOptions,
      host,
      undefined,
      undefined,
      mode,
    );
    resolved.set(file, resolution.resolvedModule?.resolvedFileName);
  }
  return { diagnostics, resolved, emitted };
}

/** A snippet's file beside `dir`'s package.json, named after where it came from. */
export const snippetFile = (dir: string, source: string, index: number, extension = '.mts') =>
  join(dir, `${source.replace(/[^\w]+/g, '-')}-${index + 1}${extension}`);
