/** The console's entry: renders the app into #app and opens the event stream. */
import { render } from 'preact'
// all the CSS is in app.css: esbuild does not load a lazily imported chunk's CSS, so uPlot's is imported here
import 'uplot/dist/uPlot.min.css'
import './app.css'
import { App } from './app.tsx'
import { startLive } from './live.ts'

startLive()
render(<App />, document.getElementById('app')!)
