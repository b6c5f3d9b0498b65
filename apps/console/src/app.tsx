import { useEffect, useState } from 'preact/hooks';
import { currentKey, type Me, setKey, whenUnauthorized, whoAmI } from './api';
import { startLiveUpdates } from './live';
import { href, useRoute } from './route';
import { AdminScreen } from './screens/admin';
import { DraftScreen, DraftsScreen } from './screens/drafts';
import { FileScreen } from './screens/file';
import { FolderNav } from './screens/folders';
import { ProjectHome } from './screens/project';
import { ProjectsNav, ProjectsScreen } from './screens/projects';
import { SearchScreen } from './screens/search';
import { SettingsScreen } from './screens/settings';
import { SignIn } from './screens/sign-in';
import { TrashScreen } from './screens/trash';

export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(currentKey() !== null);
  useEffect(() => {
    whenUnauthorized(() => {
      setKey(null);
      setMe(null);
    });
    if (currentKey() !== null) {
      whoAmI()
        .then(setMe)
        .catch(() => setKey(null))
        .finally(() => setChecking(false));
    }
  }, []);
  useEffect(() => (me ? startLiveUpdates() : undefined), [me]);
  if (checking) return <p class="loading">Loading…</p>;
  if (me === null) return <SignIn onSignedIn={setMe} />;
  return (
    <Shell
      me={me}
      onSignOut={() => {
        setKey(null);
        setMe(null);
      }}
    />
  );
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const route = useRoute();
  useEffect(() => {
    document.title = route.filename ? `${route.filename} · mdstore` : 'mdstore console';
  }, [route.filename]);
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={href.projects()}>
          mdstore
        </a>
        <span class="who">
          {me.name ?? 'API key'} · {me.role}
        </span>
        {me.role === 'admin' && (
          <>
            <a href={href.keys()}>Keys</a>
            <a href={href.webhooks()}>Webhooks</a>
          </>
        )}
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {/* On a phone an open file comes first, above the lists (styles.css, issue 37). */}
      <div class={route.view === 'file' ? 'columns on-file' : 'columns'}>
        <ProjectsNav me={me} current={route.projectId} />
        {route.projectId && <FolderNav projectId={route.projectId} route={route} me={me} />}
        <main id="main" tabIndex={-1}>
          <Content me={me} />
        </main>
      </div>
    </div>
  );
}

function Content({ me }: { me: Me }) {
  const route = useRoute();
  const { projectId } = route;
  if (route.view === 'keys' || route.view === 'webhooks') return <AdminScreen me={me} view={route.view} />;
  if (projectId === null) return <ProjectsScreen me={me} />;
  switch (route.view) {
    case 'file':
      return (
        <FileScreen
          key={`${projectId}/${route.filename}`}
          me={me}
          projectId={projectId}
          filename={route.filename!}
          anchor={route.anchor}
        />
      );
    case 'search':
      return <SearchScreen key={projectId} projectId={projectId} query={route.query} mode={route.mode} />;
    case 'drafts':
      return <DraftsScreen key={projectId} me={me} projectId={projectId} />;
    case 'draft':
      return <DraftScreen key={route.draftId} me={me} projectId={projectId} draftId={route.draftId!} />;
    case 'trash':
      return <TrashScreen me={me} projectId={projectId} />;
    case 'settings':
    case 'shares':
      return <SettingsScreen me={me} projectId={projectId} view={route.view} />;
    default:
      return <ProjectHome me={me} projectId={projectId} dir={route.dir} />;
  }
}
