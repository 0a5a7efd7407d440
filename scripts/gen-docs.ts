/** Writes the generated sections of docs/ (scripts/docs/generated-sections.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { SECTIONS, withSection } from './docs/generated-sections.js';

for (const section of SECTIONS) {
  const before = readFileSync(section.file, 'utf8');
  const after = withSection(before, section);
  if (after !== before) {
    writeFileSync(section.file, after);
    console.log(`wrote ${section.file} (${section.name})`);
  }
}
