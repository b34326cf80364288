import {
  CERT_DETAIL_TABLE,
  CERT_DEVICE_TABLE,
  CERT_TABLE,
  type CertDetailRecord,
  type CertDeviceRecord,
  type CertRecord,
} from '../../store/fields/access.ts'
import { Cert, CertDevice, CertListItem } from '../schemas/certs.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const certWire = {
  ...recordSerializer<CertDetailRecord>()(
    { detail: Cert },
    wireSpecOf(CERT_DETAIL_TABLE, { secret: ['key'] }),
  ),
  ...recordSerializer<CertRecord>()({ list: CertListItem }, wireSpecOf(CERT_TABLE)),
  ...recordSerializer<CertDeviceRecord>()({ device: CertDevice }, wireSpecOf(CERT_DEVICE_TABLE)),
}
