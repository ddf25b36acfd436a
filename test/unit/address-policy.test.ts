import type { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { policyAllowing, publicAddressPolicy } from '../../src/net/address-policy.js';
import { GuardedFetcher, ImageFetchError, type Resolver } from '../../src/net/guarded-fetch.js';
import { CA_FILE, PNG, startImageServer } from '../helpers/image-server.js';

/**
 * The address policy, judged on the address and not its spelling: every private, loopback,
 * link-local, metadata or otherwise non-public address is refused in each of its IPv4 and
 * IPv6 spellings (mapped, compatible, translated, NAT64, 6to4, Teredo), and public addresses
 * still pass. Then a sample through the guarded fetcher's own connect-time check.
 */

const REFUSED = false;
const ALLOWED = true;

const TABLE: Array<[string, boolean, string]> = [
  // IPv4, dotted
  ['10.0.0.0', REFUSED, 'private'],
  ['10.1.2.3', REFUSED, 'private'],
  ['10.255.255.255', REFUSED, 'private'],
  ['172.16.0.1', REFUSED, 'private'],
  ['172.31.255.255', REFUSED, 'private'],
  ['192.168.0.1', REFUSED, 'private'],
  ['192.168.255.255', REFUSED, 'private'],
  ['127.0.0.1', REFUSED, 'loopback'],
  ['127.0.0.2', REFUSED, 'loopback'],
  ['127.1.2.3', REFUSED, 'loopback'],
  ['127.255.255.254', REFUSED, 'loopback'],
  ['169.254.0.1', REFUSED, 'link-local'],
  ['169.254.169.254', REFUSED, 'metadata'],
  ['169.254.170.2', REFUSED, 'container metadata'],
  ['100.64.0.1', REFUSED, 'carrier NAT'],
  ['100.100.100.200', REFUSED, 'carrier NAT, metadata'],
  ['100.127.255.255', REFUSED, 'carrier NAT'],
  ['0.0.0.0', REFUSED, 'this network'],
  ['0.1.2.3', REFUSED, 'this network'],
  ['198.18.0.1', REFUSED, 'benchmarking'],
  ['198.19.255.255', REFUSED, 'benchmarking'],
  ['224.0.0.1', REFUSED, 'multicast'],
  ['239.255.255.250', REFUSED, 'multicast'],
  ['240.0.0.1', REFUSED, 'reserved'],
  ['255.255.255.255', REFUSED, 'broadcast'],
  ['192.0.2.1', REFUSED, 'documentation'],
  ['198.51.100.7', REFUSED, 'documentation'],
  ['203.0.113.9', REFUSED, 'documentation'],
  ['192.0.0.8', REFUSED, 'IETF assignments'],
  ['192.88.99.1', REFUSED, '6to4 relay'],
  // IPv4, other spellings
  ['2130706433', REFUSED, 'loopback, decimal'],
  ['0x7f000001', REFUSED, 'loopback, hex'],
  ['0x7f.1', REFUSED, 'loopback, hex short'],
  ['0X7F.0.0.1', REFUSED, 'loopback, hex part'],
  ['017700000001', REFUSED, 'loopback, octal'],
  ['0177.0.0.1', REFUSED, 'loopback, octal part'],
  ['127.1', REFUSED, 'loopback, short'],
  ['127.0.1', REFUSED, 'loopback, short'],
  ['127.0.0.1.', REFUSED, 'loopback, trailing dot'],
  ['2852039166', REFUSED, 'metadata, decimal'],
  ['0xa9.0xfe.0xa9.0xfe', REFUSED, 'metadata, hex parts'],
  ['0251.0376.0251.0376', REFUSED, 'metadata, octal parts'],
  ['169.254.43518', REFUSED, 'metadata, short'],
  ['10.1', REFUSED, 'private, short'],
  ['3232235521', REFUSED, 'private, decimal'],
  ['0', REFUSED, 'this network, decimal'],
  // IPv6 special ranges
  ['::', REFUSED, 'unspecified'],
  ['::1', REFUSED, 'loopback'],
  ['0:0:0:0:0:0:0:1', REFUSED, 'loopback, full'],
  ['0000::0001', REFUSED, 'loopback, padded'],
  ['fe80::1', REFUSED, 'link-local'],
  ['fe80::1%eth0', REFUSED, 'link-local with zone'],
  ['FE80::ABCD', REFUSED, 'link-local, upper case'],
  ['febf::1', REFUSED, 'link-local'],
  ['fc00::1', REFUSED, 'unique local'],
  ['fd00:ec2::254', REFUSED, 'unique local, metadata'],
  ['fdff::1', REFUSED, 'unique local'],
  ['fec0::1', REFUSED, 'site-local'],
  ['ff02::1', REFUSED, 'multicast'],
  ['ff05::1:3', REFUSED, 'multicast'],
  ['2001:db8::1', REFUSED, 'documentation'],
  ['2001:DB8:0:0:0:0:0:1', REFUSED, 'documentation, full'],
  ['3fff::1', REFUSED, 'documentation'],
  ['100::1', REFUSED, 'discard'],
  ['2001:2::1', REFUSED, 'benchmarking'],
  ['2001:10::1', REFUSED, 'ORCHID'],
  ['2001:20::1', REFUSED, 'ORCHIDv2'],
  ['5f00::1', REFUSED, 'SRv6'],
  ['64:ff9b:1::a00:1', REFUSED, 'local-use NAT64'],
  ['64:ff9b:1::808:808', REFUSED, 'local-use NAT64, whatever it carries'],
  ['4000::1', REFUSED, 'outside global unicast'],
  // IPv4-mapped
  ['::ffff:127.0.0.1', REFUSED, 'mapped loopback'],
  ['::FFFF:127.0.0.1', REFUSED, 'mapped loopback, upper case'],
  ['::ffff:7f00:1', REFUSED, 'mapped loopback, hex'],
  ['::ffff:7f00:0001', REFUSED, 'mapped loopback, padded'],
  ['0:0:0:0:0:ffff:7f00:1', REFUSED, 'mapped loopback, full'],
  ['0000:0000:0000:0000:0000:ffff:127.0.0.1', REFUSED, 'mapped loopback, full dotted'],
  ['[::ffff:127.0.0.1]', REFUSED, 'mapped loopback, bracketed'],
  ['::ffff:169.254.169.254', REFUSED, 'mapped metadata'],
  ['::ffff:a9fe:a9fe', REFUSED, 'mapped metadata, hex'],
  ['::ffff:10.0.0.1', REFUSED, 'mapped private'],
  ['::ffff:c0a8:101', REFUSED, 'mapped private, hex'],
  ['::ffff:0.0.0.0', REFUSED, 'mapped this network'],
  // IPv4-compatible
  ['::7f00:1', REFUSED, 'compatible loopback'],
  ['::127.0.0.1', REFUSED, 'compatible loopback, dotted'],
  ['::a9fe:a9fe', REFUSED, 'compatible metadata'],
  ['::10.0.0.1', REFUSED, 'compatible private'],
  ['::c0a8:1', REFUSED, 'compatible private, hex'],
  // IPv4-translated
  ['::ffff:0:7f00:1', REFUSED, 'translated loopback'],
  ['::ffff:0:127.0.0.1', REFUSED, 'translated loopback, dotted'],
  ['::ffff:0:a9fe:a9fe', REFUSED, 'translated metadata'],
  ['0:0:0:0:ffff:0:a00:1', REFUSED, 'translated private, full'],
  // NAT64
  ['64:ff9b::7f00:1', REFUSED, 'NAT64 loopback'],
  ['64:ff9b::127.0.0.1', REFUSED, 'NAT64 loopback, dotted'],
  ['64:ff9b::a9fe:a9fe', REFUSED, 'NAT64 metadata'],
  ['64:FF9B::10.0.0.1', REFUSED, 'NAT64 private'],
  ['64:ff9b::c0a8:101', REFUSED, 'NAT64 private, hex'],
  // 6to4
  ['2002:7f00:1::', REFUSED, '6to4 loopback'],
  ['2002:7f00:0001::1', REFUSED, '6to4 loopback, padded'],
  ['2002:a9fe:a9fe::1', REFUSED, '6to4 metadata'],
  ['2002:0a00:0001:1::1', REFUSED, '6to4 private'],
  ['2002:c0a8:0101::', REFUSED, '6to4 private'],
  ['2002:6440:1::1', REFUSED, '6to4 carrier NAT'],
  // Teredo: server, then the client inverted (127.0.0.1 → 80ff:fffe)
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', REFUSED, 'Teredo, loopback client'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', REFUSED, 'Teredo, private client'],
  ['2001::4136:e378:8000:63bf:5601:5601', REFUSED, 'Teredo, metadata client'],
  ['2001:0:a00:1:8000:63bf:f7f7:f7f7', REFUSED, 'Teredo, private server'],
  // Public
  ['8.8.8.8', ALLOWED, 'public'],
  ['1.1.1.1', ALLOWED, 'public'],
  ['93.184.216.34', ALLOWED, 'public'],
  ['11.0.0.1', ALLOWED, 'public, next to 10/8'],
  ['126.255.255.255', ALLOWED, 'public, next to 127/8'],
  ['128.0.0.1', ALLOWED, 'public, next to 127/8'],
  ['172.15.255.255', ALLOWED, 'public, next to 172.16/12'],
  ['172.32.0.1', ALLOWED, 'public, next to 172.16/12'],
  ['100.63.255.255', ALLOWED, 'public, next to 100.64/10'],
  ['100.128.0.1', ALLOWED, 'public, next to 100.64/10'],
  ['169.253.255.255', ALLOWED, 'public, next to 169.254/16'],
  ['192.169.0.1', ALLOWED, 'public, next to 192.168/16'],
  ['198.17.255.255', ALLOWED, 'public, next to 198.18/15'],
  ['198.20.0.1', ALLOWED, 'public, next to 198.18/15'],
  ['223.255.255.255', ALLOWED, 'public, next to multicast'],
  ['134744072', ALLOWED, 'public, decimal'],
  ['0x8.0x8.0x8.0x8', ALLOWED, 'public, hex parts'],
  ['8.8.2056', ALLOWED, 'public, short'],
  ['2606:4700:4700::1111', ALLOWED, 'public IPv6'],
  ['2001:4860:4860::8888', ALLOWED, 'public IPv6'],
  ['2001:4860:4860:0:0:0:0:8888', ALLOWED, 'public IPv6, full'],
  ['2a00:1450:4001:81c::200e', ALLOWED, 'public IPv6'],
  ['2001:200::1', ALLOWED, 'public IPv6, next to 2001::/23'],
  ['::ffff:8.8.8.8', ALLOWED, 'mapped public'],
  ['::ffff:808:808', ALLOWED, 'mapped public, hex'],
  ['::ffff:0:808:808', ALLOWED, 'translated public'],
  ['64:ff9b::808:808', ALLOWED, 'NAT64 public'],
  ['64:ff9b::8.8.8.8', ALLOWED, 'NAT64 public, dotted'],
  ['2002:808:808::1', ALLOWED, '6to4 public'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', ALLOWED, 'Teredo, public server and client'],
  // Not addresses at all
  ['not-an-address', REFUSED, 'a name'],
  ['localhost', REFUSED, 'a name'],
  ['', REFUSED, 'empty'],
  ['1.2.3.4.5', REFUSED, 'five parts'],
  ['256.1.1.1', REFUSED, 'a part too large'],
  ['08.1', REFUSED, 'bad octal'],
  ['1::2::3', REFUSED, 'two ::'],
  ['::ffff:1.2.3', REFUSED, 'short embedded IPv4'],
];

t.test(`the default policy judges ${TABLE.length} spellings by the address they name`, async (t) => {
  t.ok(TABLE.length >= 100);
  for (const [address, allowed, what] of TABLE) {
    t.equal(publicAddressPolicy.allows(address), allowed, `${address} (${what}) ${allowed ? 'allowed' : 'refused'}`);
  }
});

t.test('an operator range opens an address in every spelling, and only that range', async (t) => {
  const opened = policyAllowing(['127.0.0.1/32', 'fd12:3456::/32']);
  for (const address of ['127.0.0.1', '2130706433', '::ffff:127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::', 'fd12:3456::1']) {
    t.ok(opened.allows(address), `${address} opened`);
  }
  for (const address of ['127.0.0.2', '::ffff:7f00:2', 'fd12:3457::1', '10.0.0.1']) t.notOk(opened.allows(address), `${address} still refused`);
  t.ok(opened.allows('8.8.8.8'), 'the public internet stays allowed');
  for (const bad of ['not-a-range', '10.0.0.0/33', '::/129', '10.0.0.0/8/8', '10.0.0.0/x']) {
    t.throws(() => policyAllowing([bad]), /not an IP range/, bad);
  }
});

/** A resolver that gives every name the one address, and records the names it was asked. */
function resolvingTo(address: string, asked: string[]): Resolver {
  const family = address.includes(':') ? 6 : 4;
  return async (hostname) => {
    asked.push(hostname);
    return [{ address, family } satisfies LookupAddress];
  };
}

t.test('the guarded fetcher refuses a name resolving to a non-public spelling before connecting', async (t) => {
  const server = await startImageServer(t);
  const ca = readFileSync(CA_FILE);
  const sample = [
    '127.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '169.254.169.254',
    '::ffff:a9fe:a9fe',
    'fd00:ec2::254',
    '::1',
  ];
  for (const address of sample) {
    const asked: string[] = [];
    const fetcher = new GuardedFetcher({ ca, resolve: resolvingTo(address, asked) });
    const error = await fetcher.fetch(`https://images.example.test:${server.port}/cat.png`).catch((e: unknown) => e);
    t.type(error, ImageFetchError, address);
    t.match((error as Error).message, `resolves to ${address}, a private, loopback`, `${address} refused`);
    t.same(asked, ['images.example.test'], `${address}: the name was resolved through the connection's lookup`);
  }
  t.equal(server.connections, 0, 'not one connection reached the image host');

  // The same mapped address, opened by the operator, does reach the host: the refusal above was the policy's.
  const opened = new GuardedFetcher({ ca, policy: policyAllowing(['127.0.0.0/8']), resolve: resolvingTo('::ffff:127.0.0.1', []) });
  t.ok((await opened.fetch(`https://localhost:${server.port}/cat.png`)).data.equals(PNG), 'with 127.0.0.0/8 opened, ::ffff:127.0.0.1 connects');
  t.equal(server.connections, 1);
});

t.test('literal hosts in any spelling are refused before connecting (the URL parser canonicalises them first)', async (t) => {
  const server = await startImageServer(t);
  const fetcher = new GuardedFetcher({ ca: readFileSync(CA_FILE) });
  const literals: Array<[string, string]> = [
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::ffff:0:7f00:1]', '::ffff:0:7f00:1'],
    ['[::127.0.0.1]', '::7f00:1'],
    ['[2002:7f00:1::]', '2002:7f00:1::'],
    ['[64:ff9b::a9fe:a9fe]', '64:ff9b::a9fe:a9fe'],
  ];
  for (const [host, shown] of literals) {
    const error = await fetcher.fetch(`https://${host}:${server.port}/cat.png`).catch((e: unknown) => e);
    t.type(error, ImageFetchError, host);
    t.match((error as Error).message, `resolves to ${shown}, a private`, `${host} refused as ${shown}`);
  }
  t.equal(server.connections, 0, 'not one connection reached the image host');
});
