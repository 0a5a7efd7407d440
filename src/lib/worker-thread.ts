import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread on `moduleUrl`, a module beside the caller given as its `.js` name. Compiled,
 * the module is that file; run from source (tests, tsx) it is the `.ts` file, and since a thread
 * does not inherit the TypeScript loader, a small bootstrap registers it first.
 */
export function startWorker(moduleUrl: URL, options: WorkerOptions): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  if (!fromSource) return new Worker(moduleUrl, options);
  const source = new URL(moduleUrl.href.replace(/\.js$/, '.ts'));
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
