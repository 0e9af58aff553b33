import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { errors } from '../errors';
import { beforeCursor, cursorPage, parseCursor } from '../pagination';
import { findLine } from '../../src/domain/lines/store';
import {
  conversationMessagesOf,
  conversationsOf,
  toConversationRecord,
  type ConversationRow,
} from '../../src/domain/messages/conversations';
import { toMessageRecord } from '../../src/domain/messages/store';
import { toE164 } from '../../src/platform/phone';
import { sendPage } from './http';
import { navOf, tenantOf, getOperatorPage } from './operatorPages';
import { conversationPage, conversationsPage } from './pages/conversations';

const SHOWN = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const cursorOf = (query: AppContext['query']) => (typeof query.cursor === 'string' ? query.cursor : undefined);

/** SMS conversations and one conversation's messages: the queries of GET /api/v1/conversations[/…]. Every role reads them. */
export function conversationRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/conversations', deps, async (ctx, operator) => {
    const query = conversationsOf(deps.db, tenantOf(operator));
    beforeCursor(query, parseCursor(cursorOf(ctx.query)), 'c.last_message_at', 'c.last_message_id');
    const rows: ConversationRow[] = await query
      .orderBy([
        { column: 'c.last_message_at', order: 'desc' },
        { column: 'c.last_message_id', order: 'desc' },
      ])
      .limit(SHOWN + 1);
    const { page, next_cursor } = cursorPage(rows, SHOWN, (row) => ({ at: row.last_message_at, id: row.last_message_id }));
    sendPage(
      ctx,
      200,
      conversationsPage(navOf(operator, '/portal/conversations'), {
        conversations: page.map(toConversationRecord),
        olderCursor: next_cursor,
      }),
    );
  });

  getOperatorPage(router, '/portal/conversations/:lineId/:phoneNumber', deps, async (ctx, operator) => {
    const tenant = tenantOf(operator);
    const phoneNumber = toE164(ctx.params.phoneNumber);
    if (!phoneNumber)
      throw errors.validation([{ field: 'phoneNumber', message: 'Must be a phone number in E.164, percent-encoded (%2B14155550123)' }]);
    const line = UUID.test(ctx.params.lineId) ? await findLine(deps.db, tenant, ctx.params.lineId) : undefined;
    if (!line) throw errors.notFound('Line');
    const query = conversationMessagesOf(deps.db, tenant, line.id, phoneNumber);
    beforeCursor(query, parseCursor(cursorOf(ctx.query)), 'created_at', 'id');
    const rows = await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(SHOWN + 1);
    const { page, next_cursor } = cursorPage(rows, SHOWN, (row) => ({ at: row.created_at, id: row.id }));
    sendPage(
      ctx,
      200,
      conversationPage(navOf(operator, '/portal/conversations'), {
        line: { id: line.id, name: line.name, phoneNumber: line.phone_number },
        phoneNumber,
        messages: page.map(toMessageRecord),
        olderCursor: next_cursor,
      }),
    );
  });
}
