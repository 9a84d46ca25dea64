// The package's entry: the generated module (tasks.ts, which re-exports the runtime's public API).
export * from './tasks.js';
