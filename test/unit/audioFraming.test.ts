import {
  AUDIO_PROTOCOL_VERSION,
  connectedMessage,
  MAX_CUSTOMER_PAYLOAD_BYTES,
  MAX_CUSTOMER_MESSAGE_LENGTH,
  parseCustomerMessage,
  StreamFramer,
} from '../../src/platform/audio/framing';

describe('audio framing: what Switchboard sends', () => {
  it('connected, start, media, mark and stop, numbered in one sequence', () => {
    expect(connectedMessage()).toEqual({ event: 'connected', protocol: 'Call', version: AUDIO_PROTOCOL_VERSION });
    const framer = new StreamFramer('MZ1');
    expect(framer.start({ callId: 'call-1', lineId: 'line-1' })).toEqual({
      event: 'start',
      sequence_number: 1,
      stream_id: 'MZ1',
      start: { call_id: 'call-1', line_id: 'line-1', encoding: 'audio/x-mulaw', sample_rate: 8000, channels: 1 },
    });
    const payload = Buffer.from([0xff, 0x7f, 0x00, 0x80]);
    expect(framer.media(payload, 0)).toEqual({
      event: 'media',
      sequence_number: 2,
      stream_id: 'MZ1',
      media: { track: 'inbound', chunk: 1, timestamp: 0, payload: '/38AgA==' },
    });
    expect(framer.media(payload, 20.4).media).toMatchObject({ chunk: 2, timestamp: 20 });
    expect(framer.mark('greeting')).toEqual({ event: 'mark', sequence_number: 4, stream_id: 'MZ1', mark: { name: 'greeting' } });
    expect(framer.media(payload, 40, 'outbound').media).toMatchObject({ track: 'outbound', chunk: 1 });
    expect(framer.stop('call_ended')).toEqual({ event: 'stop', sequence_number: 6, stream_id: 'MZ1', stop: { reason: 'call_ended' } });
    expect(framer.lastSequence).toBe(6);
  });

  it('a reconnected stream names the one it replaces; timestamps are never negative', () => {
    const framer = new StreamFramer('MZ2');
    expect(framer.start({ callId: 'c', lineId: 'l', previousStreamId: 'MZ1' }).start.previous_stream_id).toBe('MZ1');
    expect(framer.media(Buffer.alloc(160, 0xff), -3).media.timestamp).toBe(0);
  });
});

describe('audio framing: parsing what the customer sends', () => {
  const stream = 'MZabc';
  const parse = (value: unknown) => parseCustomerMessage(typeof value === 'string' ? value : JSON.stringify(value), stream);

  it('accepts media with a base64 µ-law payload, decoded', () => {
    const payload = Buffer.alloc(160, 0x55);
    const result = parse({ event: 'media', stream_id: stream, media: { payload: payload.toString('base64') } });
    expect(result).toEqual({ ok: true, message: { event: 'media', payload } });
    // stream_id may be left out; extra fields (track, chunk…) are ignored.
    expect(parse({ event: 'media', media: { payload: 'AAAA', track: 'outbound', chunk: 3 } })).toEqual({
      ok: true,
      message: { event: 'media', payload: Buffer.from([0, 0, 0]) },
    });
    // A Buffer (as ws delivers text frames) parses the same.
    expect(parseCustomerMessage(Buffer.from(JSON.stringify({ event: 'clear' })), stream)).toEqual({
      ok: true,
      message: { event: 'clear' },
    });
  });

  it('accepts mark and clear', () => {
    expect(parse({ event: 'mark', stream_id: stream, mark: { name: 'end of greeting' } })).toEqual({
      ok: true,
      message: { event: 'mark', name: 'end of greeting' },
    });
    expect(parse({ event: 'clear', stream_id: stream })).toEqual({ ok: true, message: { event: 'clear' } });
  });

  it.each([
    ['invalid JSON', '{"event":', 'invalid JSON'],
    ['a JSON array', '[1,2]', 'must be a JSON object'],
    ['a JSON string', '"media"', 'must be a JSON object'],
    ['no event', { media: { payload: 'AAAA' } }, 'event is required'],
    ['an unknown event', { event: 'dtmf' }, 'unknown event'],
    ['another stream', { event: 'clear', stream_id: 'MZother' }, 'stream_id'],
    ['media without media', { event: 'media' }, 'media must be an object'],
    ['an empty payload', { event: 'media', media: { payload: '' } }, 'non-empty base64'],
    ['a numeric payload', { event: 'media', media: { payload: 12 } }, 'non-empty base64'],
    ['a payload that is not base64', { event: 'media', media: { payload: 'not base64!' } }, 'not base64'],
    ['unpadded base64', { event: 'media', media: { payload: 'AAA' } }, 'not base64'],
    [
      'an oversized payload',
      { event: 'media', media: { payload: Buffer.alloc(MAX_CUSTOMER_PAYLOAD_BYTES + 3).toString('base64') } },
      'more than',
    ],
    ['a mark without a name', { event: 'mark', mark: {} }, 'mark.name'],
    ['a blank mark name', { event: 'mark', mark: { name: '  ' } }, 'mark.name'],
    ['an overlong mark name', { event: 'mark', mark: { name: 'x'.repeat(257) } }, 'mark.name'],
  ])('rejects %s', (_title, value, error) => {
    const result = parse(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(error);
  });

  it('rejects binary frames and oversized messages without parsing them', () => {
    expect(parseCustomerMessage(Buffer.from('{"event":"clear"}'), stream, true)).toEqual({
      ok: false,
      error: expect.stringContaining('binary'),
    });
    const huge = JSON.stringify({ event: 'mark', mark: { name: 'x' }, pad: 'y'.repeat(MAX_CUSTOMER_MESSAGE_LENGTH) });
    expect(parse(huge)).toEqual({ ok: false, error: expect.stringContaining('longer than') });
  });

  it('accepts exactly the largest payload', () => {
    const payload = Buffer.alloc(MAX_CUSTOMER_PAYLOAD_BYTES, 0x12);
    const result = parse({ event: 'media', media: { payload: payload.toString('base64') } });
    expect(result.ok).toBe(true);
  });
});
