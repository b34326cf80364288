import { Cert, CertDevice, CertListItem } from '../schemas/certs.ts'
import { createSerializer } from './shape.ts'

export const certWire = createSerializer(
  { detail: Cert, list: CertListItem, device: CertDevice },
  { labels: { enable: 'certEnable' }, times: ['createAt', 'updateAt'], secret: ['key'] },
)
