// The package's entry: the generated module (tasks.ts, which re-exports the runtime's public API)
// and the results' helpers (results.ts).
export * from './tasks.js';
export * from './results.js';
