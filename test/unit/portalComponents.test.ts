import {
  attributes,
  chartCanvas,
  CHART_SCRIPTS,
  confirmation,
  copyable,
  envFields,
  isConfirmed,
  keyToCopy,
  option,
  postButton,
  stateBadge,
  stateLabel,
  table,
  time,
} from '../../api/portal/components';
import { CALL_STATUSES, END_CAUSES } from '../../src/domain/calls/rules';
import { LINE_STATUSES } from '../../src/domain/lines/rules';
import { MESSAGE_STATUSES } from '../../src/domain/messages/rules';
import { html } from '../../api/portal/html';
import { inRenderScope, renderInTimeZone } from '../../api/portal/timeZoneScope';

/** The portal's shared pieces (issue 28): the markup the pages wrote by hand, escaped like any template. */
describe('portal components', () => {
  // Through an alias: prettier reformats the markup of a template tagged `html`.
  const t = html;
  const squeeze = (text: string) => text.replace(/>\s+</g, '><').replace(/\s+/g, ' ').trim();

  it('renders a table with a header per column, data attributes per row and an actions column', () => {
    const rendered = table({
      id: 'things',
      caption: 'Things <of> test',
      rows: [{ id: 'a"1', name: '<b>', count: 3 }],
      rowData: (row) => ({ 'thing-id': row.id }),
      empty: t`<p id="no-things">None.</p>`,
      columns: [
        { header: 'Name', cell: (row) => row.name },
        { header: 'Count', numeric: true, cellClass: 'mono', cell: (row) => row.count },
        { header: 'Marked', cellMarker: 'marked', cell: () => 'x' },
      ],
      actions: () => t`<button>Go</button>`,
    }).value;
    expect(squeeze(rendered)).toBe(
      '<table id="things" class="stacked"><caption> Things &lt;of&gt; test </caption><thead><tr>' +
        '<th scope="col">Name</th><th scope="col" class="num">Count</th><th scope="col">Marked</th>' +
        '<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>' +
        // Each cell names its column in data-label (a phone stacks the row); the actions cell has none.
        '<tr data-thing-id="a&quot;1"><td data-label="Name">&lt;b&gt;</td><td class="num mono" data-label="Count">3</td>' +
        '<td data-label="Marked" data-marked>x</td><td><button>Go</button></td></tr>' +
        '</tbody></table>',
    );
  });

  it('stands the empty paragraph instead of a table without rows, and names a table by its heading', () => {
    const empty = t`<p id="no-things">None.</p>`;
    expect(table({ id: 'x', rows: [], rowData: () => ({}), empty, columns: [{ header: 'A', cell: () => 1 }] })).toBe(empty);
    const labelled = table({
      id: 'x',
      labelledBy: 'x-title',
      rows: [1],
      rowData: () => ({}),
      empty,
      columns: [{ header: 'A', cell: (n) => n }],
    });
    expect(labelled.value).toMatch(/^<table id="x" class="stacked" aria-labelledby="x-title">\s*<thead>/);
  });

  it('posts hidden fields with one button, escaping every value', () => {
    const form = postButton('/portal/keys/k1/revoke', 'Revoke', envFields({ csrfToken: 't<', environment: 'test' }), {
      danger: true,
      ariaLabel: 'Revoke "k"',
    });
    expect(squeeze(form.value)).toBe(
      '<form method="post" action="/portal/keys/k1/revoke"><input type="hidden" name="csrf_token" value="t&lt;" />' +
        '<input type="hidden" name="env" value="test" /><button type="submit" class="danger" aria-label="Revoke &quot;k&quot;">Revoke</button></form>',
    );
    expect(squeeze(postButton('/a', 'Go', {}, { id: 'go', fields: t`<input name="why" />` }).value)).toBe(
      '<form method="post" action="/a"><input name="why" /><button type="submit" id="go">Go</button></form>',
    );
  });

  it('shows a UTC time to the minute, second or day, the UTC time on hover, and a dash for none', () => {
    const at = new Date('2026-11-28T12:34:56.789Z');
    const attrs = 'datetime="2026-11-28T12:34:56.789Z" title="2026-11-28 12:34:56 UTC"';
    expect(String(time(at))).toBe(`<time ${attrs}>2026-11-28 12:34</time>`);
    expect(String(time(at.toISOString(), 'second'))).toBe(`<time ${attrs}>2026-11-28 12:34:56</time>`);
    expect(String(time(at, 'day'))).toBe(`<time ${attrs}>2026-11-28</time>`);
    expect(time(null)).toBe('—');
  });

  it('shows a time in the request’s workspace time zone (issue 30), UTC on hover; UTC outside a request', async () => {
    const at = new Date('2026-11-28T23:34:56.789Z');
    const attrs = 'datetime="2026-11-28T23:34:56.789Z" title="2026-11-28 23:34:56 UTC"';
    const shown = await inRenderScope(async () => {
      renderInTimeZone('Asia/Kolkata');
      await Promise.resolve(); // the zone holds across awaits within the request
      return [time(at), time(at, 'second'), time(at, 'day')].map(String);
    });
    expect(shown).toEqual([
      `<time ${attrs}>2026-11-29 05:04 GMT+5:30</time>`,
      `<time ${attrs}>2026-11-29 05:04:56 GMT+5:30</time>`,
      `<time ${attrs}>2026-11-29 GMT+5:30</time>`,
    ]);
    expect(String(time(at))).toBe(`<time ${attrs}>2026-11-28 23:34</time>`);
    expect(time('not a time')).toBe('not a time');
  });

  it('selects the option of the current value only', () => {
    expect(option('a', 'a', 'A <1>').value).toBe('<option value="a" selected>A &lt;1&gt;</option>');
    expect(option('b', 'a').value).toBe('<option value="b" >b</option>');
    expect(attributes({ a: 'x', b: true, c: false, d: undefined, e: 0 }).value).toBe(' a="x" b e="0"');
  });

  it('shows every state as a readable label in a coloured badge, keeping the raw value (issue 30)', () => {
    expect(stateBadge('in_progress').toString()).toBe(
      '<span class="badge badge-active" data-state="in_progress" title="in_progress">In progress</span>',
    );
    expect(stateBadge('failed').toString()).toContain('badge-bad');
    expect(stateLabel('api_hangup')).toBe('Hung up by the API or portal');
    // A state nobody mapped yet still reads as words, never as an enum.
    expect(stateLabel('some_new_state')).toBe('Some new state');
    expect(stateBadge(null)).toBe('—');
    // Every state the domain defines has a label of its own (no underscore left).
    for (const value of [...CALL_STATUSES, ...END_CAUSES, ...LINE_STATUSES, ...MESSAGE_STATUSES])
      expect(stateLabel(value)).not.toContain('_');
    expect(stateBadge('<x>').toString()).toContain('&lt;x&gt;');
  });

  it('offers a one-time value and its Authorization header to copy, escaped (issue 30)', () => {
    const key = squeeze(keyToCopy('minted-key', 'sk_test_"1').value);
    expect(key).toContain('<output id="minted-key" class="mono">sk_test_&quot;1</output>');
    expect(key).toContain('<output id="minted-key-header" class="mono">Authorization: Bearer sk_test_&quot;1</output>');
    expect(key).toContain(
      '<button type="button" class="secondary copy" data-copy="minted-key-header" aria-label="Copy the Authorization header" hidden>Copy</button>',
    );
    expect(squeeze(copyable('s', 'v', 'the secret').value)).toContain('<span id="s-copied" class="copied" role="status"></span>');
  });

  it('a confirmation posts confirm=yes with its hidden fields; a stale one offers no button, only what changed', () => {
    const view = {
      title: 'Release?',
      action: '/portal/lines/l1/release',
      hidden: { csrf_token: 't', env: 'test' },
      consequences: ['The number <goes>'],
      confirmLabel: 'Release line',
      back: { href: '/portal/lines/l1?env=test', label: 'back' },
    };
    const asked = confirmation(view).value;
    expect(asked).toContain('<form method="post" action="/portal/lines/l1/release"');
    expect(asked).toContain('name="confirm" value="yes"');
    expect(asked).toContain('The number &lt;goes&gt;');
    expect(isConfirmed({ confirm: 'yes' })).toBe(true);
    expect(isConfirmed({ confirm: 'on' })).toBe(false);
    const stale = confirmation({ ...view, stale: { message: 'Already released.' } }).value;
    expect(stale).toContain('Already released.');
    expect(stale).not.toContain('<form');
  });

  it("draws the overview's and billing's charts from one canvas: its days escaped in data-usage, its series named", () => {
    const chart = squeeze(
      chartCanvas({ id: 'chart-calls', label: 'Calls <per> day', days: [{ date: '2026-11-28', calls: 2 }], series: 'calls' }).value,
    );
    expect(chart).toBe(
      squeeze(`<div class="chart"> <canvas id="chart-calls" role="img" aria-label="Calls &lt;per&gt; day"
        data-usage="[{&quot;date&quot;:&quot;2026-11-28&quot;,&quot;calls&quot;:2}]" data-series="calls" ></canvas> </div>`),
    );
    expect(chartCanvas({ id: 'c', label: 'x', days: [], series: 'cost', small: true }).value).toContain('class="chart chart-small"');
    expect(CHART_SCRIPTS.value).toContain('<script src="/portal/assets/usage-chart.js" defer></script>');
  });
});
