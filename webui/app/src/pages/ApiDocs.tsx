import { useEffect, useRef, useState } from 'react';
import 'swagger-ui-dist/swagger-ui.css';
import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';

export const OPENAPI_URL = '/api/openapi.json';

// ApiDocsPage renders Swagger UI against the server's OpenAPI document.
// This module (with Swagger UI and its CSS) is lazy-loaded as its own chunk.
export default function ApiDocsPage() {
  const { t } = useI18n();
  usePageTitle('title.apiDocs');
  const host = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const node = host.current;
    if (!node) return;
    try {
      SwaggerUIBundle({
        domNode: node,
        url: OPENAPI_URL,
        deepLinking: false,
        tryItOutEnabled: false,
        onFailure: () => setFailed(true),
      });
    } catch {
      setFailed(true);
    }
    return () => {
      node.replaceChildren();
    };
  }, []);

  return (
    <>
      <h1 className="visually-hidden">{t('docs.title')}</h1>
      {failed && (
        <div className="notice notice-error" role="alert">
          {t('docs.failed')}
        </div>
      )}
      <div ref={host} className="swagger-host" data-testid="swagger-ui" />
    </>
  );
}
