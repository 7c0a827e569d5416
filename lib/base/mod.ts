/**
 * The base layer: what every other layer may use and which uses nothing of pgs. Error classes (whose failure it
 * is), warnings, a byte reader for pipes, tar archives, a semaphore, the HTTP app shape Hono apps satisfy, and the
 * "did you mean" of a mistyped name.
 * @module
 */
export { ContainerDeadError, EngineDownError, InfraError, TaskError, UsageError } from "./errors.ts";
export { setWarningSink, warnOnce } from "./warn.ts";
export { ByteReader } from "./byte_reader.ts";
export { tarArchive, type TarEntry, treeEntries } from "./tar.ts";
export { type ContentChoice, readTar, type TarMember } from "./tar_read.ts";
export { Semaphore } from "./semaphore.ts";
export { closest, didYouMean } from "./suggest.ts";
export type { HttpApp } from "./http_app.ts";
