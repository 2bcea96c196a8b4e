import { Body, Container, Head, Html, Section } from "@react-email/components";
import { ProjectLogo } from "@stackframe/emails";

// The colourful theme: the page, a centred card holding the template, and the unsubscribe line
// when the mail's category can be turned off.
export function EmailTheme({ children, unsubscribeLink, projectLogos }) {
  return (
    <Html>
      <Head />
      <Body style={{ backgroundColor: "#f3f0fb", color: "#1f2328", fontFamily: "Helvetica, Arial, sans-serif", margin: 0, padding: 24 }}>
        <Container style={{ backgroundColor: "#ffffff", borderRadius: 16, padding: 32, maxWidth: "600px", borderTop: "4px solid #6d4fd8" }}>
          <ProjectLogo data={projectLogos} mode="light" />
          {children}
        </Container>
        {unsubscribeLink && (
          <Section style={{ textAlign: "center", opacity: 0.6, padding: 16 }}>
            <a href={unsubscribeLink} style={{ color: "#6d4fd8" }}>Unsubscribe</a> from these e-mails
          </Section>
        )}
      </Body>
    </Html>
  );
}

EmailTheme.PreviewProps = {
  unsubscribeLink: "https://example.com/unsubscribe",
};
