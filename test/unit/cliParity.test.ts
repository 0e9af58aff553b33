import fs from 'node:fs';
import path from 'node:path';
import { CLI_COMMANDS } from '../../src/main/cli';

/** Issue 17 item 5: every CLI command has its row in docs/portal.md (its portal page, or why it stays CLI-only). */
describe('CLI parity table', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/portal.md'), 'utf8');
  // A row is `| \`command\` | portal page or "CLI-only" | notes |`.
  const rows = new Map([...doc.matchAll(/^\| `([^`]+)` \| ([^|]*) \|/gm)].map(([, command, portal]) => [command, portal.trim()] as const));

  it.each(CLI_COMMANDS)('`%s` has a row naming its portal page or CLI-only', (command) => {
    expect(rows.get(command)).toMatch(/\/portal\b|^CLI-only$/);
  });

  it('has no row for a command the CLI does not have', () => {
    expect([...rows.keys()].filter((command) => !(CLI_COMMANDS as readonly string[]).includes(command))).toEqual([]);
  });
});
