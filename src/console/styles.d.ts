// Style sheets the console imports for their side effect: the bundler (scripts/build.ts) puts them in the page.
declare module '*.css'
