import { useNavigate } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { AddUserForm } from '../../features/users/components/add-user-form.tsx';
import { paths } from '../../lib/paths.ts';

export default function AddUserPage() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader title="Add a user" description="Create an account for someone in your organisation." />
      <div className="card atrium-card">
        <div className="card-body">
          <AddUserForm
            onCreated={(created) =>
              navigate(paths.userDetail(created.user.id), {
                state: {
                  created: {
                    invited: created.invited,
                    mailSent: created.mailSent,
                    invitationSentTo: created.invitationSentTo,
                  },
                },
              })
            }
          />
        </div>
      </div>
    </>
  );
}
