/** The console's entry: renders the app into #app and opens the event stream. */
import { render } from 'preact'
import './app.css'
import { App } from './app.tsx'
import { startLive } from './live.ts'

startLive()
render(<App />, document.getElementById('app')!)
