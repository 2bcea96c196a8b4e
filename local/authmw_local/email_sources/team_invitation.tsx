import { Button, Heading, Hr, Section, Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

export const variablesSchema = (v) => v;

// The invitation to a team: `variables.teamDisplayName` and the accept link
// `variables.teamInvitationLink`.
export function EmailTemplate({ user, project, variables }) {
  const greeting = user.displayName ? `Hello ${user.displayName},` : "Hello,";
  return (
    <>
      <Subject value={"You have been invited to join " + variables.teamDisplayName} />
      <NotificationCategory value="Transactional" />
      <Section>
        <Heading as="h2">Join {variables.teamDisplayName}</Heading>
        <Text>{greeting}</Text>
        <Text>
          You are invited to the team {variables.teamDisplayName} on {project.displayName}.
        </Text>
        <Button href={variables.teamInvitationLink}>Accept the invitation</Button>
        <Hr />
        <Text>If you do not know this team, ignore this message.</Text>
      </Section>
    </>
  );
}

EmailTemplate.PreviewVariables = {
  teamDisplayName: "Preview team",
  teamInvitationLink: "https://example.com/handler/team-invitation?code=preview",
};
