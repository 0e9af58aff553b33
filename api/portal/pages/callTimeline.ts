import type { CallTimelineFacts, TimelineEntry } from '../../../src/domain/calls/timeline';
import type { RecordingStorage } from '../../../src/domain/recordings/rules';
import { html, type Html } from '../html';
import { time } from '../components';

type CallRecord = CallTimelineFacts['call'];

/** What a call's page shows and reloads: the call, its story, and whether that may still change. */
export interface CallView {
  call: CallRecord;
  timeline: TimelineEntry[];
  /** While true the live part reloads itself every 2 s; once false its fragment carries no trigger, so polling stops. */
  unfolding: boolean;
  /** Where the copy of its recording and transcript into the operator's store stands (issue 32). */
  storage?: RecordingStorage;
}

/** Seconds talked so far (a call in progress), or as settled; '—' before the answer. */
export function secondsOf(call: CallRecord, now: Date): string | number {
  if (call.duration_sec !== null) return call.duration_sec;
  if (call.status === 'in_progress' && call.started_at)
    return Math.max(0, Math.floor((now.getTime() - Date.parse(call.started_at)) / 1000));
  return '—';
}

/**
 * A call's story on its page (src/domain/calls/timeline.ts), oldest first: each entry's time, what
 * happened in plain words, and for a delivery its event, HTTP status, latency, raw error and a link to
 * the delivery. A failure is said in words (never by colour alone) and marked for the eye.
 */
export function callTimelineSection(callId: string, entries: readonly TimelineEntry[], environment: string): Html {
  const failures = entries.filter((entry) => entry.failed).length;
  const delivered = entries.some((entry) => entry.deliveryId);
  return html`<h2 id="timeline-heading">Timeline</h2>
    ${
      failures > 0
        ? html`<p class="error" id="timeline-failures">
            ${failures === 1 ? 'One step of this call failed' : `${failures} steps of this call failed`}: see the marked entries below.
          </p>`
        : ''
    }
    <ol id="timeline" class="timeline" aria-labelledby="timeline-heading">
      ${entries.map(
        (entry) =>
          html`<li
            class="timeline-entry${entry.failed ? ' failed' : ''}"
            data-kind="${entry.kind}"
            ${entry.failed ? html`data-failed` : ''}
          >
            <span class="timeline-at">${entry.at === null ? 'now' : time(entry.at, 'second')}</span>
            <span class="timeline-title">${entry.title}</span>
            ${
              entry.detail || entry.deliveryId
                ? html`<span class="timeline-detail"
                    >${entry.detail ?? ''}
                    ${
                      entry.deliveryId
                        ? html`<a href="/portal/deliveries/${entry.deliveryId}?env=${environment}">View the delivery</a>`
                        : ''
                    }</span
                  >`
                : ''
            }
          </li>`,
      )}
    </ol>
    ${
      delivered
        ? html`<p>
            <a id="call-deliveries" href="/portal/deliveries?env=${environment}&amp;call_id=${callId}">All deliveries of this call</a>
          </p>`
        : ''
    }`;
}
