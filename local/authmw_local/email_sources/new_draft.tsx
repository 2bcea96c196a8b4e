import { Container, Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

// A new draft: a one-off mail to send to some users. Marketing, so each mail carries the
// unsubscribe line of its theme.
export function EmailTemplate({ user, project }) {
  return (
    <Container>
      <Subject value={`News from ${project.displayName}`} />
      <NotificationCategory value="Marketing" />
      <Text>Hello {user.displayName ?? "there"},</Text>
      <Text>Write your message here.</Text>
    </Container>
  );
}
