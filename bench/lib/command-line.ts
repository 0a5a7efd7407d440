/** An argument as a POSIX shell reads it back: quoted when it holds anything but safe characters. */
const quoted = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);

/**
 * The command line that ran this benchmark, `prefix` then its own arguments, written so that it
 * can be pasted back into a shell: an argument such as `--only 'a|b'` keeps its quotes.
 */
export const commandLine = (prefix: string): string =>
  [prefix, ...process.argv.slice(2).map(quoted)].join(' ').trim();
