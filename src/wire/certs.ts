import { CERT_DETAIL_TABLE, CERT_DEVICE_TABLE, CERT_TABLE } from '../../store/fields/access.ts'
import { Cert, CertDevice, CertListItem } from '../schemas/certs.ts'
import { tableSerializer } from './shape.ts'

export const certWire = {
  ...tableSerializer(CERT_DETAIL_TABLE, { detail: Cert }, { secret: ['key'] }),
  ...tableSerializer(CERT_TABLE, { list: CertListItem }),
  ...tableSerializer(CERT_DEVICE_TABLE, { device: CertDevice }),
}
