import { Container, Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

export const variablesSchema = (v) => v;

// A new template: edit the subject, the category and the body.
export function EmailTemplate({ user, project, variables }) {
  return (
    <Container>
      <Subject value={`A message from ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Text>Hello {user.displayName ?? "there"},</Text>
      <Text>{variables.message ?? "Write your message here."}</Text>
    </Container>
  );
}

EmailTemplate.PreviewVariables = {
  message: "This is a preview.",
};
