/**
 * The providers' documented answers, as the sources cited in twilio.ts and telesign.ts print
 * them: the contract test pins the adapters to these, and the tests' stand-in servers
 * (test/helpers/phone-providers.ts) answer with them. Builders take what varies (a number, a
 * date), the rest is as documented.
 */

type Json = Record<string, unknown>;

/** A Lookup v2 body with every package null, as the OpenAPI `fetch` example. */
function twilioBase(e164: string): Json {
  return {
    calling_country_code: '44',
    country_code: 'GB',
    phone_number: e164,
    national_format: '07772 000001',
    valid: true,
    validation_errors: null,
    caller_name: null,
    sim_swap: null,
    call_forwarding: null,
    live_activity: null,
    line_type_intelligence: null,
    identity_match: null,
    reassigned_number: null,
    sms_pumping_risk: null,
    phone_number_quality_score: null,
    url: `https://lookups.twilio.com/v2/PhoneNumbers/${e164}`,
  };
}

export const twilio = {
  /** fetchLineTypeIntelligence, with the line type asked for. */
  lineType: (e164: string, type = 'nonFixedVoip'): Json => ({
    ...twilioBase(e164),
    line_type_intelligence: {
      error_code: null,
      mobile_country_code: '240',
      mobile_network_code: '38',
      carrier_name: 'Twilio - SMS/MMS-SVR',
      type,
    },
  }),
  /** fetchSimSwap (a dated swap) or, with `date` null, fetchSimSwapWithoutLastSimSwapDate. */
  simSwap: (e164: string, date: string | null, period = 'PT24H', inPeriod = true): Json => ({
    ...twilioBase(e164),
    sim_swap: {
      last_sim_swap: { last_sim_swap_date: date, swapped_period: period, swapped_in_period: inPeriod },
      carrier_name: 'Vodafone UK',
      mobile_country_code: '276',
      mobile_network_code: '02',
      error_code: null,
    },
  }),
  /** fetchCallForwarding. */
  forwarding: (e164: string, status = true): Json => ({
    ...twilioBase(e164),
    call_forwarding: { call_forwarding_status: status, error_code: null },
  }),
  /** fetchLiveActivityPorting / fetchLiveActivityRoaming (roaming present, never read). */
  liveActivity: (e164: string, ported: boolean, roaming = false): Json => ({
    ...twilioBase(e164),
    live_activity: {
      connectivity: 'connected',
      original_carrier: { name: 'Vodafone', mobile_country_code: '234', mobile_network_code: '15' },
      ported: String(ported),
      ported_carrier: ported
        ? { name: 'Orange', mobile_country_code: '266', mobile_network_code: '10' }
        : null,
      roaming: String(roaming),
      roaming_carrier: roaming
        ? { name: 'Orange', mobile_country_code: '266', mobile_network_code: '10', country_code: 'RO' }
        : null,
      error_code: null,
    },
  }),
  /** A package that answered with an error code instead of data (e.g. 60600 out of coverage). */
  packageError: (e164: string, pkg: string, code: number): Json => ({
    ...twilioBase(e164),
    [pkg]: { error_code: code },
  }),
  /** fetchInvalid. */
  invalid: (e164: string): Json => ({
    ...twilioBase(e164),
    calling_country_code: null,
    country_code: null,
    national_format: null,
    valid: false,
    validation_errors: ['TOO_LONG'],
  }),
  /** Twilio's REST error body (https://www.twilio.com/docs/usage/twilios-response#response-formats-exceptions). */
  error: (code: number, status: number, message: string): Json => ({
    code,
    message,
    more_info: `https://www.twilio.com/docs/errors/${code}`,
    status,
  }),
};

/** A Phone ID answer, as "Phone ID - Get started" prints it (body only, location trimmed). */
function telesignBase(e164: string, phoneType: { code: string; description: string }): Json {
  return {
    reference_id: 'F0123456789ABCDEF0123456789ABCDE',
    status: {
      updated_on: '2015-10-03T14:51:28.709526Z',
      code: 300,
      description: 'Transaction successfully completed',
    },
    numbering: {
      original: {
        complete_phone_number: e164.replace(/^\+/, ''),
        country_code: '1',
        phone_number: e164.slice(2),
      },
    },
    phone_type: phoneType,
    carrier: { name: 'Verizon Wireless' },
  };
}

const addonStatus = (code: number, description: string) => ({ status: { code, description } });

export const telesign = {
  phoneId: (e164: string, description = 'MOBILE', code = '2'): Json =>
    telesignBase(e164, { code, description }),
  /** With the SIM Swap add-on: `risk` 1..4, or a status code (2805 no information, 2803 coverage). */
  simSwap: (base: Json, risk: number | { code: number; description: string }): Json => ({
    ...base,
    sim_swap:
      typeof risk === 'number'
        ? {
            swap_date: '2018-09-05',
            swap_time: '22:00:00',
            risk_indicator: risk,
            ...addonStatus(2800, 'Request successfully completed'),
          }
        : addonStatus(risk.code, risk.description),
  }),
  /** With the Porting History add-on: ported on `portDate`, or a status (2805 not ported in 90 days). */
  portingHistory: (base: Json, port: string | { code: number; description: string }): Json => ({
    ...base,
    porting_history:
      typeof port === 'string'
        ? {
            carrier_current: 'Sprint Spectrum, L.P.',
            carrier_previous: 'US Cellular Corp.',
            mcc_carrier_current: '310',
            mcc_carrier_previous: '310',
            mnc_carrier_current: '120',
            mnc_carrier_previous: '160',
            phone_type_current: 'MOBILE',
            phone_type_previous: 'MOBILE',
            port_date: port,
            number_of_portings: '1',
            ...addonStatus(2800, 'Request successfully completed'),
          }
        : addonStatus(port.code, port.description),
  }),
  /** An error answer: the transaction status and the errors list. */
  error: (code: number, description: string): Json => ({
    reference_id: 'F0123456789ABCDEF0123456789ABCDE',
    status: { updated_on: '2015-10-03T14:51:28.709526Z', code, description },
    errors: [{ code, description }],
  }),
};

export const TELESIGN_NO_INFO = {
  code: 2805,
  description: 'No sim_swap identity attribute information for phone number.',
};
export const TELESIGN_OUT_OF_COVERAGE = {
  code: 2803,
  description: 'Phone number out of sim_swap identity attribute coverage.',
};
export const TELESIGN_NOT_PORTED = {
  code: 2805,
  description: 'No porting_history add-on information for phone number.',
};
