/**
 * The ceiling of the MQTT benchmark: aedes alone on a free port, no authentication, no processing
 * (the same `concurrency: 0` setting as the service's broker). Prints {port} and runs until killed.
 */
import { createServer } from 'node:net'
import { Aedes } from 'aedes'

const broker = await Aedes.createBroker({ concurrency: 0 })
const server = createServer(broker.handle)
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }))
})
