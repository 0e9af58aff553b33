import type { AppDeps } from '../../api/context';
import { temporalUiLink } from '../../api/portal/callRoutes';
import { lineUpdateOfForm } from '../../api/portal/lineRoutes';
import { modeFieldsOfForm } from '../../api/portal/workspaceRoutes';
import { fieldsOfMode, MODE_DEPENDENT_FIELDS, modesUsing } from '../../src/domain/lines/modeFields';
import { LINE_MODES, REQUIRED_FIELD_BY_MODE } from '../../src/domain/lines/rules';
import type { LineRow } from '../../src/domain/lines/store';

const line = {
  name: 'Desk',
  display_name: null,
  mode: 'hosted',
  system_prompt: 'You answer the desk.',
  begin_message: null,
  voice: null,
  webhook_url: null,
  audio_handler_url: null,
  status_callback_url: null,
  language: 'multi',
  context_limit: null,
  endpointing_ms: null,
  recording_enabled: false,
  compliance_enabled: false,
} as unknown as LineRow;

/** The form as the line's page shows it, unchanged. */
const asShown = {
  name: 'Desk',
  display_name: '',
  mode: 'hosted',
  system_prompt: 'You answer the desk.',
  begin_message: '',
  voice: '',
  webhook_url: '',
  audio_handler_url: '',
  status_callback_url: '',
  language: 'multi',
  context_limit: '',
  endpointing_ms: '',
};

describe('the portal line form as a PATCH body', () => {
  it('sends nothing for a form left as shown: the language of a hosted line is not pinned', () => {
    expect(lineUpdateOfForm(line, asShown)).toEqual({});
  });

  it('sends the changed fields: empty text clears, integers are numbers, boxes are booleans, a non-number stays text', () => {
    const update = lineUpdateOfForm({ ...line, begin_message: 'Hi', context_limit: 20 } as LineRow, {
      ...asShown,
      begin_message: ' ',
      context_limit: '40',
      endpointing_ms: 'soon',
      recording_enabled: 'on',
      mode: 'webhook',
    });
    expect(update).toEqual({ begin_message: null, context_limit: 40, endpointing_ms: 'soon', recording_enabled: true, mode: 'webhook' });
  });
});

describe('the mode-aware line forms (issue 30)', () => {
  it('leaves out the fields the chosen mode does not use, even when typed (they are hidden in the form)', () => {
    const update = lineUpdateOfForm(line, {
      ...asShown,
      mode: 'webhook',
      system_prompt: 'Changed',
      webhook_url: 'https://agent.example/hook',
    });
    expect(update).toEqual({ mode: 'webhook', webhook_url: 'https://agent.example/hook' });
    // Hosted: a language is never sent (the line detects it), whatever the form holds.
    expect(
      lineUpdateOfForm({ ...line, mode: 'webhook', language: 'en' } as LineRow, { ...asShown, language: 'es', mode: 'hosted' }),
    ).toEqual({
      mode: 'hosted',
    });
  });

  it('creates with the chosen mode’s fields only', () => {
    const typed = {
      system_prompt: 'p',
      webhook_url: 'https://h.example',
      audio_handler_url: 'wss://a.example',
      begin_message: 'Hi',
      voice: 'nova',
    };
    expect(modeFieldsOfForm({ ...typed, mode: 'audio' })).toEqual({
      system_prompt: null,
      webhook_url: null,
      audio_handler_url: 'wss://a.example',
      begin_message: 'Hi',
      voice: 'nova',
    });
    expect(modeFieldsOfForm({ ...typed, mode: 'hosted', begin_message: ' ' })).toMatchObject({
      system_prompt: 'p',
      webhook_url: null,
      begin_message: null,
    });
  });

  it('knows every mode of LINE_MODES, and shows a mode it does not know every field', () => {
    for (const mode of LINE_MODES) {
      const required = REQUIRED_FIELD_BY_MODE[mode];
      // An agent line needs none of them (its agent drives calls through the API); it still has its own row.
      if (required) expect(fieldsOfMode(mode)).toContain(required);
      else expect(fieldsOfMode(mode)).not.toEqual(MODE_DEPENDENT_FIELDS);
    }
    expect(fieldsOfMode('newer-mode')).toEqual(MODE_DEPENDENT_FIELDS);
    expect(modesUsing('system_prompt', ['hosted', 'webhook', 'audio'])).toEqual(['hosted']);
  });
});

describe('the Temporal UI link of a call', () => {
  const deps = (temporalUiUrl: string | undefined, temporalNamespace = 'default') =>
    ({ temporalUiUrl, temporalNamespace }) as AppDeps['config'];

  it('is the workflow page under the configured UI, its parts URL-encoded; none when unset', () => {
    expect(temporalUiLink(deps('http://127.0.0.1:8233'), 'a1b2')).toBe('http://127.0.0.1:8233/namespaces/default/workflows/a1b2');
    expect(temporalUiLink(deps('https://ui.example.test/temporal', 'team a/b'), 'id?x')).toBe(
      'https://ui.example.test/temporal/namespaces/team%20a%2Fb/workflows/id%3Fx',
    );
    expect(temporalUiLink(deps(undefined), 'a1b2')).toBeUndefined();
  });
});
