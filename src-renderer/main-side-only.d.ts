// What the web project (tsconfig.web.json) resolves Node's built-ins to: a file that is not a
// module, so that an import of one from the renderer or from a core module it reaches fails the
// typecheck ("… is not a module"). SQLite is refused by the renderer-boundary lint rule instead:
// a `better-sqlite3` path here reached Playwright through tsconfig.json's references.
declare const mainSideOnly: never
