import { Button, Heading, Hr, Section, Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

export const variablesSchema = (v) => v;

// The mail sent to confirm an address: `variables.emailVerificationLink` opens the app's
// verification page with the code.
export function EmailTemplate({ user, project, variables }) {
  const greeting = user.displayName ? `Hello ${user.displayName},` : "Hello,";
  return (
    <>
      <Subject value={`Verify your email at ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Section>
        <Heading as="h2">Confirm your e-mail address</Heading>
        <Text>{greeting}</Text>
        <Text>Please confirm this address for your {project.displayName} account.</Text>
        <Button href={variables.emailVerificationLink}>Verify my email</Button>
        <Hr />
        <Text>You can ignore this message if you did not create an account.</Text>
      </Section>
    </>
  );
}

EmailTemplate.PreviewVariables = {
  emailVerificationLink: "https://example.com/handler/email-verification?code=preview",
};
