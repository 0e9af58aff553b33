/**
 * The call events the simulated carrier POSTs to Switchboard (`/carrier/events`), signed
 * (src/adapters/carrier/callbacks/signature.ts). The simulator's only declaration of that
 * vocabulary: once the service's carrier event type is shared with the simulator, this file
 * re-exports it instead.
 */
export type SimulatedCallEvent =
  | { type: 'call.incoming'; carrier_call_id: string; from: string; to: string; at: number }
  | { type: 'call.ringing' | 'call.answered' | 'call.busy' | 'call.no_answer' | 'call.failed'; call_id: string; carrier_call_id: string; at: number }
  | {
      type: 'call.completed';
      call_id: string;
      carrier_call_id: string;
      at: number;
      ended_by: 'caller' | 'switchboard';
      answered: boolean;
      recording_url?: string;
    }
  | { type: 'call.utterance'; call_id: string; carrier_call_id: string; text: string; language: string; at: number }
  | {
      type: 'call.playback';
      call_id: string;
      carrier_call_id: string;
      speak_id: string;
      played_text: string;
      done: boolean;
      stopped?: true;
      at: number;
    };
