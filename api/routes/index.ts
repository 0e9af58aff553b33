import type { RouteDef } from '../routeTable';
import { apiTokenRoutes } from './apiTokens';
import { auditRoutes } from './audit';
import { authKeyRoutes } from './authKeys';
import { billingRoutes } from './billing';
import { callRoutes } from './calls';
import { campaignContactListRoutes } from './campaignContactLists';
import { campaignRoutes } from './campaigns';
import { carrierEventRoutes } from './carrier/events';
import { carrierMessageRoutes } from './carrier/messages';
import { telnyxEventRoutes } from './carrier/telnyx';
import { complianceRoutes } from './compliance';
import { keyPlaneRoutes } from './keys';
import { legalHoldRoutes } from './legalHolds';
import { lineRoutes } from './lines';
import { messageRoutes } from './messages';
import { stripeWebhookRoutes } from './processor/stripe';
import { systemRoutes } from './system';
import { webhookRoutes } from './webhooks';

/** The route table: every endpoint, its scope and its OpenAPI operation, in one list. */
export function allRoutes(openApiYaml: () => string): RouteDef[] {
  return [
    ...systemRoutes(openApiYaml),
    ...lineRoutes(),
    ...keyPlaneRoutes(),
    ...apiTokenRoutes(),
    ...authKeyRoutes(),
    ...webhookRoutes(),
    ...billingRoutes(),
    ...complianceRoutes(),
    ...auditRoutes(),
    ...legalHoldRoutes(),
    ...callRoutes(),
    ...campaignContactListRoutes(),
    ...campaignRoutes(),
    ...messageRoutes(),
    ...carrierEventRoutes(),
    ...carrierMessageRoutes(),
    ...telnyxEventRoutes(),
    ...stripeWebhookRoutes(),
  ];
}
