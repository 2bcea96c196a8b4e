// Every wait in the tests ends on a condition; these bounds only have to be generous enough for
// a loaded 2-core machine, never tight enough to time it (testing-library's default is 1 s).
import { configure } from "@testing-library/react";

configure({ asyncUtilTimeout: 30_000 });
