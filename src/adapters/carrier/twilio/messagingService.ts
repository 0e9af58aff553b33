import type twilio from 'twilio';
import { twilioCall } from './requests';

/**
 * US A2P 10DLC on Twilio: US carriers block SMS from long codes that are not in a registered campaign
 * (Twilio's "Shutdown of Unregistered 10DLC Messaging" FAQ; errors 30034/30035), and a campaign is
 * registered on a Messaging Service, so every number the adapter buys joins the configured service:
 * Messaging v1 `POST https://messaging.twilio.com/v1/Services/{ServiceSid}/PhoneNumbers` with
 * `PhoneNumberSid` (twilio/twilio-oai `spec/json/twilio_messaging_v1.json`, operation
 * CreatePhoneNumber). Toll-free numbers join too (toll-free verification is per number, in the Console).
 *
 * Idempotent: adding a number the service already holds is refused (Twilio's warning 80104 "Phone
 * Number Already In Service", twilio.com/docs/api/errors/80104); the refusal is read back with
 * `GET …/PhoneNumbers/{Sid}` (FetchPhoneNumber), whose 200 says the number is in this service, so the
 * answer never hinges on the code. Any other refusal (21712: the number is in another service; an
 * unknown service) stands.
 */
export async function joinMessagingService(client: twilio.Twilio, serviceSid: string, phoneNumberSid: string): Promise<void> {
  const service = client.messaging.v1.services(serviceSid);
  try {
    await twilioCall('add the number to the Messaging Service', () => service.phoneNumbers.create({ phoneNumberSid }));
  } catch (refused) {
    const joined = await twilioCall('read the Messaging Service number', () => service.phoneNumbers(phoneNumberSid).fetch()).then(
      () => true,
      () => false,
    );
    if (!joined) throw refused;
  }
}
