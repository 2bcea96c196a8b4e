import { Body, Container, Head, Html, Section } from "@react-email/components";
import { ProjectLogo } from "@stackframe/emails";

// The dark theme: the page, a centred card holding the template, and the unsubscribe line
// when the mail's category can be turned off.
export function EmailTheme({ children, unsubscribeLink, projectLogos }) {
  return (
    <Html>
      <Head />
      <Body style={{ backgroundColor: "#1d1f23", color: "#f2f3f5", fontFamily: "Helvetica, Arial, sans-serif", margin: 0, padding: 24 }}>
        <Container style={{ backgroundColor: "#2b2e33", borderRadius: 8, padding: 32, maxWidth: "600px" }}>
          <ProjectLogo data={projectLogos} mode="dark" />
          {children}
        </Container>
        {unsubscribeLink && (
          <Section style={{ textAlign: "center", opacity: 0.6, padding: 16 }}>
            <a href={unsubscribeLink}>Unsubscribe</a> from these e-mails
          </Section>
        )}
      </Body>
    </Html>
  );
}

EmailTheme.PreviewProps = {
  unsubscribeLink: "https://example.com/unsubscribe",
};
