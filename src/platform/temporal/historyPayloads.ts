import type { Payload as PayloadFields, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/**
 * Payloads inside a workflow history: decrypting them all (an export for a compliance team) and
 * showing each JSON payload's value in the exported JSON.
 */
const Payload = temporal.api.common.v1.Payload;
type History = temporal.api.history.v1.History;

interface PayloadSlot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  payload: temporal.api.common.v1.Payload;
}

/**
 * Every Payload message in the history (inputs, results, signals, failures' details, memos,
 * headers, markers...) run through the codecs' `decode` (last codec first, as a client decodes), in
 * place; unencrypted ones come back as they were. Walks the message tree, so no event type is
 * missed as new ones appear.
 */
export async function decodeHistoryPayloads(history: History, codecs: readonly PayloadCodec[]): Promise<History> {
  return transformHistoryPayloads(history, async (payloads) => {
    for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
    return payloads;
  });
}

/**
 * Every Payload message in the history (or those at a field path `include` accepts, e.g.
 * `events.3.markerRecordedEventAttributes.details.result.payloads.0`) replaced, in place, by what
 * `transform` makes of it (in one call, in order).
 */
export async function transformHistoryPayloads(
  history: History,
  transform: (payloads: PayloadFields[]) => Promise<PayloadFields[]>,
  include: (path: ReadonlyArray<string | number>) => boolean = () => true,
): Promise<History> {
  const slots: PayloadSlot[] = [];
  collect(history, slots, new Set(), [], include);
  if (slots.length === 0) return history;
  const replaced = await transform(slots.map((slot) => slot.payload));
  slots.forEach((slot, i) => {
    (slot.holder as Record<string | number, unknown>)[slot.key] = Payload.create({
      metadata: replaced[i].metadata ?? {},
      data: replaced[i].data,
    });
  });
  return history;
}

function collect(
  node: unknown,
  slots: PayloadSlot[],
  seen: Set<unknown>,
  path: Array<string | number>,
  include: (path: ReadonlyArray<string | number>) => boolean,
): void {
  if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node) || seen.has(node)) return;
  seen.add(node);
  const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
  for (const [key, value] of entries) {
    const at = [...path, key];
    if (!isPayloadMessage(value)) collect(value, slots, seen, at, include);
    else if (include(at)) slots.push({ holder: node as Record<string, unknown>, key, payload: value });
  }
}

/** A decoded Payload message (the generated classes are reflection types at runtime: compared by `$type`). */
function isPayloadMessage(value: unknown): value is temporal.api.common.v1.Payload {
  return value !== null && typeof value === 'object' && (value as { $type?: unknown }).$type === Payload;
}

const JSON_ENCODING = Buffer.from('json/plain').toString('base64');

/**
 * The exported JSON with a `value` beside the bytes of every `json/plain` payload: its JSON,
 * readable without decoding base64. `History.fromObject` ignores the field, so the file still
 * replays. Payloads still encrypted (no key for them) or of another encoding are left as they are.
 */
export function withReadableValues(json: unknown): unknown {
  if (Array.isArray(json)) json.forEach(withReadableValues);
  else if (json !== null && typeof json === 'object') {
    const object = json as Record<string, unknown>;
    const metadata = object.metadata as Record<string, unknown> | undefined;
    if (metadata && typeof metadata === 'object' && metadata.encoding === JSON_ENCODING && typeof object.data === 'string') {
      try {
        object.value = JSON.parse(Buffer.from(object.data, 'base64').toString('utf8'));
      } catch {
        // not JSON after all: the bytes stay the record
      }
      return json;
    }
    Object.values(object).forEach(withReadableValues);
  }
  return json;
}
