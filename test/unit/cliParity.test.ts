import fs from 'node:fs';
import path from 'node:path';
import { CLI_COMMANDS, USAGE } from '../../src/main/cli';

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

/** The one command table (src/main/cli.ts) gives the usage text too: every command is listed there. */
describe('CLI usage text', () => {
  const lines = USAGE.split('\n').filter((line) => /^ {2}\S/.test(line));

  it.each(CLI_COMMANDS)('lists `%s`', (command) => {
    const [group, action] = command.split(' ');
    const listed = lines.some((line) => {
      const [first, second] = line.trim().split(/\s+/);
      return first === group && (action === undefined || (second ?? '').split('|').includes(action));
    });
    expect(listed).toBe(true);
  });

  it('lists nothing the CLI does not have', () => {
    const listed = lines.flatMap((line) => {
      const [group, second] = line.trim().split(/\s+/);
      // A one-word command (`migrate`) is followed by its description; others by their action(s), `add|remove`.
      if ((CLI_COMMANDS as readonly string[]).includes(group)) return [group];
      return (second ?? '').split('|').map((action) => `${group} ${action}`);
    });
    expect(listed.filter((command) => !(CLI_COMMANDS as readonly string[]).includes(command))).toEqual([]);
  });
});
