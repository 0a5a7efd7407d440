import { cpuUsage } from 'node:process';
const c = () => { const u = cpuUsage(); return Math.round((u.user + u.system) / 1000); };
const { createPglite } = await import('./src/db/pglite.ts');
const { readFileSync } = await import('node:fs');
let t = c(); let w = performance.now();
const d = await createPglite('memory://', new Blob([readFileSync(process.env.IMG!)]));
await d.query('select count(*) from pg_class');
console.log(process.execArgv.filter(a=>a.startsWith('--wasm')||a.startsWith('--no')).join(' '), 'from image cpu ms', c() - t, 'wall', Math.round(performance.now()-w));
process.exit(0);
