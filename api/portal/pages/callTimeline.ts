import type { TimelineEntry } from '../../../src/domain/calls/timeline';
import { html, type Html } from '../html';
import { time } from '../components';

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
