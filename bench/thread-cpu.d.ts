// Types for thread-cpu.js (plain JavaScript so the crawl children can load it before the compile cache is on).
/** CPU ms (user + system) by thread name; {} where /proc is missing. */
export function threadCpuMs(): Record<string, number>;
