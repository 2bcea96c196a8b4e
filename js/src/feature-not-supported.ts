// The error of POST /check-feature-support, in a module of its own that only the error classes
// (./errors, loaded with the first error) import.
import { AuthmwError } from "./known-error.js";

/**
 * The service says a feature is not supported: what `checkFeatureSupport` always ends in
 * (`POST /check-feature-support`). `feature` is the name asked about; the message is the service's.
 */
export class FeatureNotSupported extends AuthmwError {
  readonly feature: string;

  constructor(feature: string, message: string) {
    super(message);
    this.name = "FeatureNotSupported";
    this.feature = feature;
  }
}
