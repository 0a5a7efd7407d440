/**
 * Where the server may send alerts: http(s) URLs whose host resolves only to public addresses
 * (see special-addresses.ts), unless WFAPI_ALERTS_ALLOW_PRIVATE is set (server-side request
 * forgery: a rule must not make the server reach its own loopback, the private network or a
 * cloud metadata address, in whatever form the address is written). Checked
 * when a rule is saved, and again at every connection (see `guardedLookup`), so a name that
 * later resolves to a private address (DNS rebinding) is refused too.
 */
import { promises as dns, type LookupAddress, lookup } from 'node:dns';
import { isIP } from 'node:net';
import { badInput } from '../errors.js';
import { isPrivateAddress } from './special-addresses.js';

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The URL of a receiver, checked; `field` names it in the error. */
export async function checkReceiverUrl(field: string, text: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw badInput(`${field} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badInput(`${field} must be an http or https URL, got ${url.protocol}`);
  if (url.username || url.password) throw badInput(`${field} must not carry credentials`);
  if (text.length > 2000) throw badInput(`${field} must be at most 2000 characters`);
  if (allowPrivate) return url.toString();
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw badInput(`${field}: cannot resolve ${host}`);
    }
  }
  const refused = addresses.find(isPrivateAddress);
  if (refused !== undefined)
    throw badInput(
      `${field} resolves to ${refused}, a loopback, private or reserved address; set WFAPI_ALERTS_ALLOW_PRIVATE=1 to allow`,
    );
  return url.toString();
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that refuses a host with any private address, checked on the
 * addresses actually connected to.
 */
export function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) {
      const blocked = Object.assign(new Error(`${hostname} resolves to private address ${refused.address}`), {
        code: 'EPRIVATEADDRESS',
      });
      return callback(blocked, []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
