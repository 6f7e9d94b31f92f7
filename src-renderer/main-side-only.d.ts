// What the web project (tsconfig.web.json) resolves Node's built-ins and SQLite to: a file that is
// not a module, so that an import of either from the renderer or from a core module it reaches
// fails the typecheck ("… is not a module"). Those run in the main process only.
declare const mainSideOnly: never
