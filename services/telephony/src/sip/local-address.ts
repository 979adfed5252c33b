import { networkInterfaces } from 'node:os';
import { splitHostPort } from './fields';
import type { LocalAddress } from './requests';

// The address we write into Via and Contact: SIP_PUBLIC_ADDRESS behind NAT, else the bound address,
// else (bound to every interface) the first external IPv4 address of this machine.

export function advertisedAddress(bindAddress: string, port: number, publicAddress?: string): LocalAddress {
  if (publicAddress) {
    const parsed = splitHostPort(publicAddress.trim());
    if (!parsed) throw new Error(`publicAddress ${publicAddress} is not host or host:port`);
    return { host: parsed.host, port: parsed.port ?? port };
  }
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::') return { host: bindAddress, port };
  for (const addresses of Object.values(networkInterfaces())) {
    const external = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (external) return { host: external.address, port };
  }
  return { host: '127.0.0.1', port };
}
