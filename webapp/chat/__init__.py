"""The Chat page's parts: the controls and scope of a chat, what is done to a whole chat (new,
clear, rename, delete, export), its dropped files, the saved chats, a recorded turn as shown,
and an agent's steps while it works."""
