import { getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js';
import type twilio from 'twilio';
import type { NumberCriterion, NumberType } from '../../../domain/lines/numberChoice';
import type * as port from '../port';
import { CarrierRejectedError, NumberUnavailableError } from '../port';
import { ignoreNotFound, toRefusal, twilioCall } from './requests';
import { joinMessagingService } from './messagingService';

/**
 * The number Twilio's test credentials buy (and call and text from): its documented "magic"
 * number. A live account cannot buy it, so the test environment's adapter, which buys nothing
 * else, can never buy a real number whatever credentials it was given.
 */
export const TWILIO_TEST_NUMBER = '+15005550006';

/** What a number bought or imported for a line is set to: its FriendlyName (when bought) and Switchboard's webhooks. */
export interface TwilioNumberWebhooks {
  voiceUrl: string;
  voiceMethod: 'POST';
  smsUrl: string;
  smsMethod: 'POST';
  statusCallback: string;
  statusCallbackMethod: 'POST';
}

export interface TwilioNumberSettings {
  mode: 'live' | 'test';
  messagingServiceSid?: string;
  regulation?: { addressSids?: Readonly<Record<string, string>>; bundleSids?: Readonly<Record<string, string>> };
  webhooks: TwilioNumberWebhooks;
}

type Owned = { sid: string; phoneNumber: string };

/** Twilio's 21422: the number searched is no longer available (bought meanwhile): search again. */
const NO_LONGER_AVAILABLE = 21422;

/**
 * Numbers on Twilio. Bought: a search (`AvailablePhoneNumbers/{Country}/{Local|TollFree|Mobile}`
 * with `AreaCode` in the US and Canada, `Contains: +<country code><area code>` elsewhere, voice and
 * SMS), then `POST IncomingPhoneNumbers` with the line's key as FriendlyName (a retry finds it) and
 * Switchboard's webhooks. Imported: the account's IncomingPhoneNumber of that number gets the
 * webhooks, nothing is bought. Either then joins the Messaging Service. Released: deleted, or for an
 * import detached (its webhooks cleared; the account keeps it).
 */
export class TwilioNumbers {
  constructor(
    private readonly client: twilio.Twilio,
    private readonly settings: TwilioNumberSettings,
  ) {}

  async provision(request: port.ProvisionNumberRequest): Promise<port.ProvisionedNumber> {
    return twilioCall('buy a number', async () => {
      if (this.settings.mode === 'test') return this.buyTestNumber(request);
      if (request.importNumber) return this.importNumber(request.importNumber);
      // The idempotency key is the number's FriendlyName: a retry finds the number the first attempt bought.
      const [owned] = await this.client.incomingPhoneNumbers.list({ friendlyName: request.idempotencyKey, limit: 1 });
      const number = owned ?? (await this.buy(request));
      // A number is the line's once it can text: joined to the Messaging Service (a retry joins it again, harmlessly).
      await this.joinMessagingService(number, () => this.client.incomingPhoneNumbers(number.sid).remove());
      return { phoneNumber: number.phoneNumber, carrierRef: number.sid };
    });
  }

  async release(request: port.ReleaseNumberRequest): Promise<void> {
    // Test credentials bought nothing real and cannot delete.
    if (this.settings.mode === 'test') return;
    await twilioCall(request.keepInAccount ? 'detach a number' : 'release a number', async () => {
      const owned = await this.client.incomingPhoneNumbers.list({ phoneNumber: request.phoneNumber, limit: 1 });
      for (const number of owned)
        await ignoreNotFound(() => (request.keepInAccount ? this.detach(number) : this.client.incomingPhoneNumbers(number.sid).remove()));
    });
  }

  /**
   * Test credentials may only POST IncomingPhoneNumbers, and only the magic number succeeds: a line
   * asking for another country, type or area code, or to import a number, is told so.
   */
  private async buyTestNumber(request: port.ProvisionNumberRequest): Promise<port.ProvisionedNumber> {
    const unmet: NumberCriterion | undefined = request.importNumber
      ? 'phone_number'
      : request.country !== 'US'
        ? 'country'
        : (request.numberType ?? 'local') !== 'local'
          ? 'number_type'
          : request.areaCode
            ? 'area_code'
            : undefined;
    if (unmet) throw new NumberUnavailableError(unmet, `Twilio test credentials buy only ${TWILIO_TEST_NUMBER}`, { provider: 'twilio' });
    const bought = await this.client.incomingPhoneNumbers.create({
      phoneNumber: TWILIO_TEST_NUMBER,
      friendlyName: request.idempotencyKey,
      ...this.settings.webhooks,
    });
    return { phoneNumber: bought.phoneNumber, carrierRef: bought.sid };
  }

  private async buy(request: port.ProvisionNumberRequest): Promise<Owned> {
    const { country } = request;
    const type = request.numberType ?? 'local';
    const candidate = await this.search(request, type);
    const addressSid = this.settings.regulation?.addressSids?.[country];
    const bundleSid = this.settings.regulation?.bundleSids?.[country];
    try {
      return await this.client.incomingPhoneNumbers.create({
        phoneNumber: candidate,
        friendlyName: request.idempotencyKey,
        ...this.settings.webhooks,
        ...(addressSid ? { addressSid } : {}),
        ...(bundleSid ? { bundleSid } : {}),
      });
    } catch (err) {
      // Someone bought it between the search and the purchase: the activity's retry searches again.
      if ((err as { code?: number }).code === NO_LONGER_AVAILABLE) throw new Error(`${candidate} was bought meanwhile`, { cause: err });
      throw regulatoryRefusal(toRefusal(err, 'buy a number'), country);
    }
  }

  /** The first number for sale as asked, with voice and SMS; which criterion matched nothing otherwise. */
  private async search(request: port.ProvisionNumberRequest, type: NumberType): Promise<string> {
    const { country, areaCode } = request;
    const where = areaCode ? ` in area code ${areaCode}` : '';
    let found: Array<{ phoneNumber: string }>;
    try {
      const catalog = this.client.availablePhoneNumbers(country);
      const criteria = { voiceEnabled: true, smsEnabled: true, limit: 1, ...areaCodeCriteria(country, areaCode) };
      // Twilio's subresources (twilio/twilio-oai twilio_api_v2010.json: ListAvailablePhoneNumberLocal, …TollFree,
      // …Mobile) answer 404 for a type it does not sell in the country (the US has no Mobile), or any country it sells nothing in.
      found = await (type === 'toll_free'
        ? catalog.tollFree.list(criteria)
        : type === 'mobile'
          ? catalog.mobile.list(criteria)
          : catalog.local.list(criteria));
    } catch (err) {
      if ((err as { status?: number }).status !== 404) throw err;
      const criterion = (await this.sellsIn(country)) ? 'number_type' : 'country';
      throw new NumberUnavailableError(criterion, `Twilio sells no ${type} numbers in ${country}`, { provider: 'twilio', code: '20404' });
    }
    const candidate = found[0]?.phoneNumber;
    if (!candidate) {
      throw new NumberUnavailableError(
        areaCode ? 'area_code' : 'country',
        `Twilio has no ${type} number with voice and SMS in ${country}${where}`,
        {
          provider: 'twilio',
        },
      );
    }
    return candidate;
  }

  /** Whether Twilio sells numbers in the country at all (`GET AvailablePhoneNumbers/{Country}`, 404 when not). */
  private async sellsIn(country: string): Promise<boolean> {
    try {
      await this.client.availablePhoneNumbers(country).fetch();
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 404) return false;
      throw err;
    }
  }

  /** One of the account's numbers, pointed at Switchboard (its FriendlyName stays the operator's). */
  private async importNumber(phoneNumber: string): Promise<port.ProvisionedNumber> {
    const [owned] = await this.client.incomingPhoneNumbers.list({ phoneNumber, limit: 1 });
    if (!owned) throw new NumberUnavailableError('phone_number', `the Twilio account has no number ${phoneNumber}`, { provider: 'twilio' });
    const routed = await this.client.incomingPhoneNumbers(owned.sid).update({ ...this.settings.webhooks });
    // A number that cannot join the service is let go again, never released: the account keeps what it owned.
    await this.joinMessagingService(routed, () => this.detach(routed));
    return { phoneNumber: routed.phoneNumber, carrierRef: routed.sid };
  }

  /** Clears the webhooks Switchboard set; the number stays in the account (and in the Messaging Service, which Switchboard cannot tell it was not in before). */
  private async detach(number: Owned): Promise<unknown> {
    return this.client.incomingPhoneNumbers(number.sid).update({ voiceUrl: '', smsUrl: '', statusCallback: '' });
  }

  /**
   * Joins the number to the Messaging Service; a refusal undoes the number (a line that cannot text
   * is not made with it, and an unused bought number is not kept and billed) before it is reported.
   */
  private async joinMessagingService(number: Owned, undo: () => Promise<unknown>): Promise<void> {
    const serviceSid = this.settings.messagingServiceSid;
    if (!serviceSid) return;
    try {
      await joinMessagingService(this.client, serviceSid, number.sid);
    } catch (err) {
      if (!(toRefusal(err) instanceof CarrierRejectedError)) throw err;
      await ignoreNotFound(undo);
      throw err;
    }
  }
}

/**
 * Twilio's `AreaCode` applies to US and Canadian numbers only; elsewhere the area code is matched as a
 * prefix: `Contains` starting with `+` matches the beginning of the number (ListAvailablePhoneNumberLocal's
 * documented pattern), here its E.164 country code and area code.
 */
function areaCodeCriteria(country: string, areaCode: string | undefined): { areaCode?: number; contains?: string } {
  if (!areaCode) return {};
  if (country === 'US' || country === 'CA') return { areaCode: Number(areaCode) };
  const callingCode = isSupportedCountry(country) ? getCountryCallingCode(country) : '';
  return { contains: `+${callingCode}${areaCode}` };
}

/**
 * Twilio's refusals of a purchase for want of regulatory documents, with what the operator sets:
 * 21631 "Phone Number Requires an Address" (twilio.com/docs/api/errors/21631) and 21649, a number with
 * identity regulations bought without an approved BundleSid (Twilio changelog 2020-02-12, "Regulated
 * Number Bundle Provisioning Requirement").
 */
const REGULATORY_SETTINGS: Readonly<Record<string, string>> = { '21631': 'TWILIO_LIVE_ADDRESS_SIDS', '21649': 'TWILIO_LIVE_BUNDLE_SIDS' };

function regulatoryRefusal(err: Error, country: string): Error {
  const setting = err instanceof CarrierRejectedError ? REGULATORY_SETTINGS[err.refusal?.code ?? ''] : undefined;
  if (!setting || !(err instanceof CarrierRejectedError)) return err;
  return new CarrierRejectedError(
    `${err.message} (numbers in ${country} need it: set ${setting}=${country}:… on the worker, docs/carriers.md)`,
    err.refusal,
  );
}
