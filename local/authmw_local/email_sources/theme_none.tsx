import { Body, Head, Html } from "@react-email/components";

// "No theme" (`theme_id: false`): the mail is still a whole HTML document, without any styling.
export function EmailTheme({ children }) {
  return (
    <Html>
      <Head />
      <Body>{children}</Body>
    </Html>
  );
}
