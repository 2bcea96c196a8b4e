// The texts of the verification notice (verification-notice.tsx), part of the components' texts.
// A module of their own: the notice loads after the first page, and what it imports from a module
// the package's index re-exports (texts.ts) would be put into that first page by a bundler.

export interface NoticeTexts {
  /** The title of the notice shown after a sign-up that sent a verification e-mail. */
  verificationSentTitle: string;
  /** The notice's sentence: the address the verification e-mail went to. */
  verificationSent(email: string): string;
  /** The notice's button that sends the verification e-mail again. */
  sendAgain: string;
  sending: string;
  sentAgain: string;
  /** The e-mail could not be sent again. */
  notSent: string;
  /** The notice's button that closes it for good. */
  dismiss: string;
}

export const NOTICE_TEXTS: NoticeTexts = {
  verificationSentTitle: "Check your inbox",
  verificationSent: (email) => `We sent a verification link to ${email}.`,
  sendAgain: "Send again",
  sending: "Sending…",
  sentAgain: "Sent again.",
  notSent: "The e-mail could not be sent. Please try again.",
  dismiss: "Dismiss",
};
