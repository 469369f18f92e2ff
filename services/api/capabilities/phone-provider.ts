/**
 * The HTTP call to the phone-lookup provider the operator configured (PHONE_LOOKUP_PROVIDER),
 * through the adapter of shared/capabilities/phone-live-lookup. Undefined without a provider or
 * its credentials: then no lookup is ever made.
 */
import type { Config } from '../../../shared/config.ts';
import type {
  LookupField,
  PhoneLookupProvider,
  ProviderAnswer,
} from '../../../shared/capabilities/phone-live-lookup/result.ts';
import {
  parseTelesign,
  telesignRequest,
  TELESIGN_FIELDS,
} from '../../../shared/capabilities/phone-live-lookup/telesign.ts';
import {
  parseTwilio,
  twilioRequest,
  TWILIO_FIELDS,
} from '../../../shared/capabilities/phone-live-lookup/twilio.ts';

export interface ProviderClient {
  name: PhoneLookupProvider;
  /** The fields this provider answers. */
  fields: readonly LookupField[];
  /** Asks for `fields` of `e164`; rejects on a transport failure, a timeout or a malformed body. */
  ask(e164: string, fields: readonly LookupField[], timeoutMs: number): Promise<ProviderAnswer>;
}

type Request = { url: string; init: RequestInit };

async function call(req: Request, timeoutMs: number): Promise<{ status: number; body: string }> {
  const res = await fetch(req.url, { ...req.init, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: await res.text() };
}

/** A provider's client: its request builder and its parser over one fetch with a deadline. */
function client(
  name: ProviderClient['name'],
  fields: readonly LookupField[],
  request: (e164: string, fields: readonly LookupField[]) => Request,
  parse: (status: number, body: string, fields: readonly LookupField[]) => ProviderAnswer,
): ProviderClient {
  return {
    name,
    fields,
    ask: async (e164, asked, timeoutMs) => {
      const { status, body } = await call(request(e164, asked), timeoutMs);
      return parse(status, body, asked);
    },
  };
}

export function providerClient(cfg: Config): ProviderClient | undefined {
  if (cfg.PHONE_LOOKUP_PROVIDER === 'twilio' && cfg.TWILIO_ACCOUNT_SID && cfg.TWILIO_AUTH_TOKEN) {
    const creds = {
      accountSid: cfg.TWILIO_ACCOUNT_SID,
      authToken: cfg.TWILIO_AUTH_TOKEN,
      baseUrl: cfg.TWILIO_LOOKUP_URL,
    };
    return client(
      'twilio',
      TWILIO_FIELDS,
      (e164, fields) => twilioRequest(creds, e164, fields),
      (status, body, fields) => parseTwilio(status, body, fields, Date.now()),
    );
  }
  if (cfg.PHONE_LOOKUP_PROVIDER === 'telesign' && cfg.TELESIGN_CUSTOMER_ID && cfg.TELESIGN_API_KEY) {
    const creds = {
      customerId: cfg.TELESIGN_CUSTOMER_ID,
      apiKey: cfg.TELESIGN_API_KEY,
      baseUrl: cfg.TELESIGN_URL,
    };
    return client(
      'telesign',
      TELESIGN_FIELDS,
      (e164, fields) => telesignRequest(creds, e164, fields),
      parseTelesign,
    );
  }
  return undefined;
}
