import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { X509Certificate, createPrivateKey, createSign, createVerify } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { createCa, issueClientCert, CA_DAYS, CLIENT_DAYS } from '../../../src/kernel/pki.ts'

const DAY = 86_400_000
const pki = suite('pki')

const days = (c: X509Certificate) => (Date.parse(c.validTo) - Date.parse(c.validFrom)) / DAY

pki(
  'createCa :: self-signed CA, CN DeviceCloud CA <tenant>, CA constraints and key usages, 10 years',
  async () => {
    const ca = await createCa('tenantA')
    assert.match(ca.cert, /^-----BEGIN CERTIFICATE-----\n/)
    assert.match(ca.key, /^-----BEGIN PRIVATE KEY-----\n/)
    const root = new X509Certificate(ca.cert)
    assert.is(root.subject, 'CN=DeviceCloud CA tenantA')
    assert.is(root.issuer, root.subject)
    assert.ok(root.ca)
    assert.ok(root.verify(root.publicKey))
    assert.ok(root.checkPrivateKey(createPrivateKey(ca.key)))
    assert.ok(Math.abs(days(root) - CA_DAYS) < 1, String(days(root)))
    const parsed = new x509.X509Certificate(ca.cert)
    const bc = parsed.getExtension(x509.BasicConstraintsExtension)!
    assert.ok(bc.ca && bc.critical)
    const ku = parsed.getExtension(x509.KeyUsagesExtension)!
    assert.is(ku.usages, x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign)
    assert.ok(ku.critical)
  },
)

pki(
  'issueClientCert :: signed by the CA, CN as given, clientAuth, digitalSignature, not a CA, ~2 years',
  async () => {
    const ca = await createCa('tenantB')
    const issued = await issueClientCert(ca, 'device-cn-1')
    const root = new X509Certificate(ca.cert)
    const cert = new X509Certificate(issued.cert)
    assert.is(cert.subject, 'CN=device-cn-1')
    assert.is(cert.issuer, 'CN=DeviceCloud CA tenantB')
    assert.ok(cert.verify(root.publicKey))
    assert.ok(cert.checkIssued(root))
    assert.not.ok(cert.ca)
    assert.equal(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'])
    assert.ok(Math.abs(days(cert) - CLIENT_DAYS) < 1, String(days(cert)))
    assert.ok(Date.parse(cert.validFrom) <= Date.now())
    const parsed = new x509.X509Certificate(issued.cert)
    assert.is(
      parsed.getExtension(x509.KeyUsagesExtension)!.usages,
      x509.KeyUsageFlags.digitalSignature,
    )
    assert.not.ok(parsed.getExtension(x509.BasicConstraintsExtension)!.ca)
    assert.ok(parsed.getExtension(x509.AuthorityKeyIdentifierExtension))
  },
)

pki('client key :: matches the certificate (sign with key, verify with cert)', async () => {
  const ca = await createCa('tenantC')
  const issued = await issueClientCert(ca, 'k')
  const cert = new X509Certificate(issued.cert)
  const key = createPrivateKey(issued.key)
  assert.ok(cert.checkPrivateKey(key))
  const sig = createSign('SHA256').update('hello').sign(key)
  assert.ok(createVerify('SHA256').update('hello').verify(cert.publicKey, sig))
  assert.not.ok(createVerify('SHA256').update('other').verify(cert.publicKey, sig))
  // the CA's key is not the client's key
  assert.not.ok(cert.checkPrivateKey(createPrivateKey(ca.key)))
})

pki('serials and keys :: random per certificate, positive', async () => {
  const ca = await createCa('tenantD')
  const a = new X509Certificate((await issueClientCert(ca, 'same')).cert)
  const b = new X509Certificate((await issueClientCert(ca, 'same')).cert)
  assert.is.not(a.serialNumber, b.serialNumber)
  assert.ok(parseInt(a.serialNumber.slice(0, 2), 16) < 0x80)
  assert.is.not(a.fingerprint256, b.fingerprint256)
})

pki('CN with DN syntax :: kept literal, one CN attribute', async () => {
  const ca = await createCa('tenantE')
  const cn = 'a,b=c+"d" <e>; O=evil \\x #00 \\0a'
  for (const name of [cn, '#0001', '"quoted"', 'Zürich 传感器']) {
    const parsed = new x509.X509Certificate((await issueClientCert(ca, name)).cert)
    assert.equal(parsed.subjectName.getField('CN'), [name])
    assert.equal(parsed.subjectName.getField('O'), [])
  }
})

pki('foreign CA :: a certificate does not verify against another tenant CA', async () => {
  const [a, b] = [await createCa('t1'), await createCa('t2')]
  const cert = new X509Certificate((await issueClientCert(a, 'x')).cert)
  const otherRoot = new X509Certificate(b.cert)
  assert.not.ok(cert.verify(otherRoot.publicKey))
  assert.not.ok(cert.checkIssued(otherRoot))
})

pki.run()
