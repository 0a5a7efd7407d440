/**
 * Sections of the reference in docs/ that are generated from the code, between
 * `<!-- generated: NAME (npm run gen:docs) -->` and `<!-- end generated: NAME -->`. The tests
 * compare each with what it renders now; `npm run gen:docs` writes them.
 */
import { settingsList } from '../../src/config.js';
import { ERRORS, type ErrorKind } from '../../src/errors.js';

export interface GeneratedSection {
  readonly file: string;
  readonly name: string;
  render(): string;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** docs/errors.md: every entry of the error registry, with its code and HTTP status. */
export const errorsTable: GeneratedSection = {
  file: 'docs/errors.md',
  name: 'errors',
  render() {
    const rows = (Object.keys(ERRORS) as ErrorKind[]).map((kind) => {
      const { code, status, description } = ERRORS[kind];
      return `| \`${kind}\` | \`${code}\` | ${status} | ${cell(description)} |`;
    });
    return ['| answer | code | HTTP status | meaning |', '|---|---|---|---|', ...rows].join('\n');
  },
};

/** docs/configuration.md: every setting of src/config.ts, as declared there. */
export const configurationTable: GeneratedSection = {
  file: 'docs/configuration.md',
  name: 'configuration',
  render() {
    const rows = settingsList().map(({ setting }) => {
      const name = `\`${setting.variable}\`${setting.flag ? ` / \`${setting.flag}\`` : ''}`;
      return `| ${name} | ${setting.shownDefault} | ${cell(setting.kind)} | ${cell(setting.description)} |`;
    });
    return ['| variable | default | values | meaning |', '|---|---|---|---|', ...rows].join('\n');
  },
};

export const SECTIONS: readonly GeneratedSection[] = [errorsTable, configurationTable];

const startMarker = (name: string) => `<!-- generated: ${name} (npm run gen:docs) -->`;
const endMarker = (name: string) => `<!-- end generated: ${name} -->`;

/** Where the section's text lies between its markers, or undefined when they are missing. */
function locate(document: string, section: GeneratedSection): { from: number; to: number } | undefined {
  const start = document.indexOf(startMarker(section.name));
  const to = document.indexOf(endMarker(section.name));
  if (start < 0 || to < start) return undefined;
  return { from: start + startMarker(section.name).length, to };
}

/** The section's text as the file holds it now, or undefined when the markers are missing. */
export function currentText(document: string, section: GeneratedSection): string | undefined {
  const at = locate(document, section);
  return at && document.slice(at.from, at.to).trim();
}

/** `document` with the section replaced by what it renders now. */
export function withSection(document: string, section: GeneratedSection): string {
  const at = locate(document, section);
  if (!at) throw new Error(`${section.file} has no markers for the ${section.name} section`);
  return `${document.slice(0, at.from)}\n${section.render()}\n${document.slice(at.to)}`;
}
