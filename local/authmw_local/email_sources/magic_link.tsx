import { Heading, Hr, Link, Section, Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

export const variablesSchema = (v) => v;

// The sign-in mail: a one-time code (`variables.otp`, on a line of its own) and the link that
// signs in directly (`variables.magicLink`).
export function EmailTemplate({ user, project, variables }) {
  const greeting = user.displayName ? `Hello ${user.displayName},` : "Hello,";
  return (
    <>
      <Subject value={"Sign in to " + project.displayName + ": Your code is " + variables.otp} />
      <NotificationCategory value="Transactional" />
      <Section>
        <Heading as="h2">Your sign-in code for {project.displayName}</Heading>
        <Text>{greeting}</Text>
        <Text>Enter this code to sign in:</Text>
        <Text style={{ fontSize: 24, fontFamily: "monospace", fontWeight: "bold" }}>{variables.otp}</Text>
        <Text>
          Or open <Link href={variables.magicLink}>this link</Link> to sign in.
        </Text>
        <Hr />
        <Text>You can ignore this message if you did not try to sign in.</Text>
      </Section>
    </>
  );
}

EmailTemplate.PreviewVariables = {
  magicLink: "https://example.com/handler/magic-link-callback?code=preview",
  otp: "PR3V13",
};
