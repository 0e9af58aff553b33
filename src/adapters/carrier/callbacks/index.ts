/*
 * The carrier callbacks the API takes at `/carrier/events` and `/carrier/messages` (the simulator's
 * protocol), the one module the API imports for them (lint: `http-only-in-api`): the vocabulary every
 * carrier's callbacks are translated into (./wire.ts), a callback's signature verified and taken once,
 * and the bounds on the time it reports. Telnyx's and Twilio's callbacks have their own facades
 * (./telnyx/index.ts, ../twilio/callbacks/index.ts).
 */

export * from './wire';
export { verifyCarrierCallback } from './signature';
export { acceptCallbackSignatureOnce } from './replay';
export { carrierEventTimeProblem } from './eventTime';
