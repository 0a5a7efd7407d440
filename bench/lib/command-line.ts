/** An argument as a POSIX shell reads it back: quoted when it holds anything but safe characters. */
const quoted = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);

/**
 * The command line that ran this benchmark, `prefix` then its own arguments, written so that it
 * can be pasted back into a shell: an argument such as `--only 'a|b'` keeps its quotes. The
 * servers a benchmark starts inherit its environment, so the `WFAPI_` settings in it lead the line
 * (as `WFAPI_ROLLUP_CACHE_MB=0 npm run bench -- ...`): a result says what it measured.
 */
export const commandLine = (prefix: string): string =>
  [
    ...Object.entries(process.env)
      .filter(([name, value]) => name.startsWith('WFAPI_') && value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => `${name}=${quoted(value!)}`),
    prefix,
    ...process.argv.slice(2).map(quoted),
  ]
    .join(' ')
    .trim();
