/**
 * An eval run exported: each episode as an ATIF v1.7 trajectory (Harbor's format) with a validator of Harbor's rules,
 * and the passing episodes as chat-format SFT rows. The run's folder is only read.
 * @module
 */
export { atifDirNames, type AtifExport, type AtifOptions, exportAtif, splitProfile, toAtif } from "./atif.ts";
export * from "./atif_types.ts";
export { validateAtif } from "./atif_validate.ts";
export { readRunTrajectories } from "../eval/records/run_dir.ts";
export {
  DEFAULT_MIN_REWARD,
  exportSft,
  passes,
  type SftExport,
  type SftOptions,
  type SftRow,
  sftRow,
  sftRows,
} from "./sft.ts";
