import type { Db } from '../../../../platform/db/knex';
import { listenForNotifications, type NotificationListener } from '../../../../platform/db/listen';
import type { Logger } from '../../../../platform/logger';
import { takeRelayCommands, TWILIO_RELAY_CHANNEL } from './relayCommands';
import type { ConversationRelaySession } from './relaySession';

/**
 * The ConversationRelay sessions one API instance holds, by CallSid, and the LISTEN that brings
 * them the worker's commands (./relayCommands.ts). The LISTEN starts with the first session; once it
 * is in place (again, after a lost connection) every session takes what waits for it.
 */
export class ConversationRelayHub {
  private readonly sessions = new Map<string, ConversationRelaySession>();
  private listener: NotificationListener | undefined;

  constructor(
    private readonly db: Db,
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  /**
   * The session's call is known (Twilio's `setup`): it takes its commands from now on. A second live
   * session for the call is closed: the one holding the call keeps it (security review L13).
   */
  async register(session: ConversationRelaySession): Promise<void> {
    const callSid = session.callSid!;
    const holder = this.sessions.get(callSid);
    if (holder && holder !== session && holder.isOpen) {
      this.logger.warn({ callSid }, 'conversationrelay second session for a call closed');
      return session.close();
    }
    this.sessions.set(callSid, session);
    this.listener ??= listenForNotifications({
      databaseUrl: this.databaseUrl,
      channel: TWILIO_RELAY_CHANNEL,
      applicationName: 'switchboard-twilio-relay',
      logger: this.logger,
      onNotification: (sid) => void this.drain(sid),
      onListening: () => {
        for (const sid of this.sessions.keys()) void this.drain(sid);
      },
    });
    await this.listener.ready;
    await this.drain(callSid);
  }

  unregister(session: ConversationRelaySession): void {
    if (session.callSid && this.sessions.get(session.callSid) === session) this.sessions.delete(session.callSid);
  }

  async close(): Promise<void> {
    await this.listener?.close();
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }

  private drain(callSid: string): Promise<void> {
    const session = this.sessions.get(callSid);
    return session ? session.drain(() => takeRelayCommands(this.db, callSid)) : Promise.resolve();
  }
}
