//! The predefined Cloud Storage roles the simulator knows, and their permissions.

/// An IAM permission on objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    /// `storage.objects.get`: read data and metadata.
    Get,
    /// `storage.objects.list`.
    List,
    /// `storage.objects.create`: add a new object.
    Create,
    /// `storage.objects.delete`: delete, and (with create) replace an existing object.
    Delete,
    /// `storage.objects.update`: change metadata.
    Update,
}

impl Permission {
    pub fn name(self) -> &'static str {
        match self {
            Permission::Get => "storage.objects.get",
            Permission::List => "storage.objects.list",
            Permission::Create => "storage.objects.create",
            Permission::Delete => "storage.objects.delete",
            Permission::Update => "storage.objects.update",
        }
    }
}

/// A predefined role, granted on a bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// `roles/storage.objectViewer`: get and list.
    ObjectViewer,
    /// `roles/storage.objectCreator`: create only; cannot delete, so cannot replace.
    ObjectCreator,
    /// `roles/storage.objectUser`: get, list, create, delete, update.
    ObjectUser,
    /// `roles/storage.objectAdmin`: full control of objects.
    ObjectAdmin,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::ObjectViewer => "roles/storage.objectViewer",
            Role::ObjectCreator => "roles/storage.objectCreator",
            Role::ObjectUser => "roles/storage.objectUser",
            Role::ObjectAdmin => "roles/storage.objectAdmin",
        }
    }

    pub fn parse(name: &str) -> Option<Role> {
        [
            Role::ObjectViewer,
            Role::ObjectCreator,
            Role::ObjectUser,
            Role::ObjectAdmin,
        ]
        .into_iter()
        .find(|r| r.name() == name)
    }

    pub fn grants(self, permission: Permission) -> bool {
        use Permission::*;
        match self {
            Role::ObjectViewer => matches!(permission, Get | List),
            Role::ObjectCreator => matches!(permission, Create),
            Role::ObjectUser | Role::ObjectAdmin => true,
        }
    }
}
