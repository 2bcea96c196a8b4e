import { Button, Heading, Hr, Section, Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

export const variablesSchema = (v) => v;

// The mail with the link that lets a user choose a new password (`variables.passwordResetLink`).
export function EmailTemplate({ user, project, variables }) {
  const greeting = user.displayName ? `Hello ${user.displayName},` : "Hello,";
  return (
    <>
      <Subject value={"Reset your password at " + project.displayName} />
      <NotificationCategory value="Transactional" />
      <Section>
        <Heading as="h2">Choose a new password</Heading>
        <Text>{greeting}</Text>
        <Text>Someone asked to reset the password of your {project.displayName} account.</Text>
        <Button href={variables.passwordResetLink}>Reset my password</Button>
        <Hr />
        <Text>If that was not you, ignore this message: your password stays as it is.</Text>
      </Section>
    </>
  );
}

EmailTemplate.PreviewVariables = {
  passwordResetLink: "https://example.com/handler/password-reset?code=preview",
};
